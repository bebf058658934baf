// Package local is the default backend: the state of a working copy in
// files. A workspace's state is one file (.leadsync/state.json for the
// default workspace, .leadsync/workspaces/NAME/state.json for another),
// written whole and atomically (a temporary file, synced, renamed; the
// state before kept as .backup, except by a write that erases people,
// which removes it: it still holds them); beside it the journal of the apply under
// way (one synced, checksummed line per completed call, replayed by the
// next load and folded in at the end) and the lock file that keeps two
// writers apart. It also recovers a journal damaged in the middle (state
// recover). Beside the default workspace's state file it keeps what the
// working copy's workspaces share: the pace file, the budget's ledger
// (ledger.go), the erasure record (erasures.json, erasures.go), which every
// workspace's Load and Push honour, and the claims of the enrichments in
// flight (claims.go: the folder claims/, each running apply alive while it
// holds the file lock of its holder file).
//
// It registers itself as the default backend (Definition) and runs
// backendtest.Run in its tests. It imports state (the model), statefile
// (the codec), backend (the interfaces it implements), safefile, filelock,
// api/pacefile (its shared pace), textfmt and version; it must not import
// config, plan, run or cli, nor another backend.
package local
