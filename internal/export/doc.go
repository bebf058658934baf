// Package export writes the spreadsheets (XLSX and CSV) of export blocks from
// state alone, atomically. It imports config and state, never api's client
// and never the network: `leadsync export` and the end of `leadsync apply`
// call WriteAll with the same state and get the same files.
//
// XLSX: a Summary sheet first, then one worksheet per sheet block (bold
// frozen header, an Excel table, fitted widths, dates as date cells, profile
// links as HYPERLINK formulas, data never a formula). excelize writes the
// workbook, styles and each sheet's frame with its StreamWriter; the data
// rows' XML is written and compressed by this package (sheetxml.go) and
// spliced into the sheet's zip entry (splice.go), many times faster than
// StreamWriter.SetRow. CSV: one RFC 4180 file per sheet block plus a summary
// file, with cells neutralised against formula injection.
//
// Files are written under a temporary name in their folder and renamed into
// place only when complete.
package export
