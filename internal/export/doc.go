// Package export writes the spreadsheets (XLSX and CSV) of export blocks from
// state alone, atomically. It imports config, state, person (the table
// of person fields: columns and labels), the leaves address and kind
// (which kind of block a sheet's source is), exportformat and recovered (a
// pager's or a compressor's panic is Write's error), never api's
// client and never the network: `leadsync export` and the end of
// `leadsync apply` call Write for each export with the same state and get
// the same files. Write reads a state.Base: `leadsync export` the store's
// (backend.OpenBase), apply the state it holds (state.NewBase).
//
// Write collects each sheet's rows and table once, then hands them to the
// writer of the export's format. A sheet's rows are person IDs in sheet
// order. only_new, exclude blocks and where read the people a page at a
// time while the rows are collected. Without exclude blocks, they read
// the columns only_new and the where name alone (sheetColumns,
// WhereColumns). A where remembers what it gave by the values it reads
// (matchPerson). The writer's fill reads the people of the rows it
// writes a page at a time (rowPeople), the next page read on a goroutine
// of its own while a page's rows are written. The
// Summary's counts are taken as the rows are filled (rowTally), so a
// writer writes its sheets' rows before the Summary. It hands them to
// the writer of the export's format (formats.go: the writers by the name of
// their exportformat.Format). A new format is a row in exportformat's table
// (name, extension, layout) and a file here with its writer, added to
// writers; config, plan and the views learn of it from the table.
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
// The compressed rows of a sheet are made before excelize writes the
// package and kept until their entry is written: in memory up to 8 MB, past
// that in a temporary file of the system's temp folder (os.CreateTemp:
// mode 0600, removed when the workbook is written, fails or is stopped; about 85 MB for
// a million rows of 12 columns). They are not streamed into the zip as they
// are made because excelize decides when each entry is written, and a raw
// zip entry is written with its CRC-32 and sizes known. Each data sheet
// declares its real used range (<dimension ref="A1:L1000001">), which
// readers such as openpyxl's read-only mode trust. What this relies on in
// excelize (part names, one Create per entry written whole before the next
// call, the StreamWriter's XML) is pinned by TestExcelizeInternals.
//
// A sheet with changes lists one row per change of people's histories
// (changes.go) instead of people; a sheet's where keeps the people for whom
// it holds, reading the same values as the cells. An e-mail that is not
// current (state.Person.EmailNotCurrent: of a former employer, or of
// someone who left the network) is never shown as current: its cell is
// empty and the validation status says why.
//
// Files are written under a temporary name in their folder and renamed into
// place only when complete. Options.Stop (apply's second interrupt) stops
// a writer between batches of rows and before each rename: its temporary
// files are removed, and Write returns ErrStopped. HoldRows, set only by
// the end-to-end tests' leadsync process, holds a writer at its first row
// until a test's interrupt has come.
package export
