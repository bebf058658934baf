// Package safefile writes the files of a working copy that hold personal
// data or paid results (the local state, its journal and lock, the export
// record, the field catalog's cache, the pace file): their folder is
// private (0700, with a .gitignore of "*" in .leadsync), a whole file is
// written to a temporary file, synced and renamed into place, and a failed
// write says what to do (a full disk, a folder that is not writable).
// A temporary file made beside such a file carries its maker's process ID
// (TempPattern), so that the next run removes only the leftovers of a
// killed process (RemoveDeadTemps; ProcessAlive tells, which the pg
// backend asks of a lock's holder too).
//
// It imports only the standard library; every package that writes such a
// file uses it, so it must not import any of leadsync's.
package safefile
