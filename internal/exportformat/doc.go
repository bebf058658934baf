// Package exportformat is the table of export formats: for each, its name,
// the extension of an export path that chooses it, and the layout of the
// files it writes. It imports nothing of leadsync.
//
// The table sits in a package of its own because two packages read it
// and one of them must not import the other: config checks that an
// export's path ends in a known extension and names the files the export
// will write (which plan checks and the collision check compares), and
// export writes them. Data flows config -> plan -> engine -> state ->
// export, so config cannot ask export; both ask this table. The writers
// themselves (and excelize) stay in export, keyed by the format's name.
package exportformat
