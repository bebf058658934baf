// Package local is the default backend: the state of a working copy in
// files. A workspace's state is one file (.leadsync/state.json for the
// default workspace, .leadsync/workspaces/NAME/state.json for another),
// written whole and atomically (a temporary file, synced, renamed; the
// state before kept as .backup, except by a write that erases people,
// which removes it: it still holds them); beside it the journal of the apply under
// way (one synced, checksummed line per completed call, replayed by the
// next load and folded in at the end) and the lock file that keeps two
// writers apart. It also recovers a journal damaged in the middle (state
// recover). The workspaces of a working copy share the budget's ledger
// (ledger.json) and the erasure record (erasures.json, erasures.go), which
// every workspace's Load and Push honour.
//
// It registers itself as the default backend (Definition) and runs
// backendtest.Run in its tests. It imports state (the model), statefile
// (the codec), backend (the interfaces it implements), safefile, filelock,
// api/pacefile (its shared pace), textfmt and version; it must not import
// config, plan, run or cli, nor another backend.
package local
