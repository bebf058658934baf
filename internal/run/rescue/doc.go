// Package rescue keeps the answers an apply was paid for when they cannot
// be written where the state lives (a database that is down, a disk that
// is full): one file per run, in the user's cache directory
// (os.UserCacheDir()/leadsync/rescue), on another file system than the
// state's as a rule. Each line is one event, as the journal holds them
// ("<crc> <json>", a CRC-32C of the JSON, so that a line torn by a crash
// is recognised and skipped); the first line is a header naming the run,
// the state's lineage and where the state is. A file is 0600 in a 0700
// folder, and holds personal data like the state, never the API key (an
// event holds no key).
//
// The files of one state are found by a Place: a key made of what names
// the state for the commands (the working copy's folder and the
// workspace, or a state file named on the command line), so that two
// working copies or two workspaces never mix. A Writer holds the
// operating system's lock on the file it writes (internal/filelock), so
// that the command folding a file in removes it only once its writer is
// done.
//
// What a rescue file is for, and who reads and folds it, is internal/run's
// (rescue.go there). This package only reads and writes the files. It
// imports state (the events), filelock and safefile.
package rescue
