// Package export writes the spreadsheets (XLSX and CSV) of export blocks from
// state alone, atomically. It imports config and state, never api.
package export
