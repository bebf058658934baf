// Package state owns what leadsync knows was fetched: the state file
// (atomic, 0600, format_version/lineage/serial, with a backup), the journal
// that records each completed call during apply (one synced, checksummed
// line per call, replayed on load and folded in at the end), and the lock
// that keeps two writers apart. Fold is the one place the state changes,
// both live and on replay. It also reads and writes the working copy's
// record of the spreadsheets it wrote (.leadsync/exports.json: which state,
// by DataMark, and which configuration each was written from), a local file
// beside the state's, never part of the state. It imports only api and
// version.
package state
