// Package local is the default backend: the state of a working copy in
// files. A workspace's state is the SQLite database .leadsync/state.db
// (.leadsync/workspaces/NAME/state.db for another workspace; sqlite.go:
// internal/state/sqlstate's tables, written and checked; sqlite_record.go:
// one transaction per completed call; sqlite_read.go: the reads in part;
// sqlite_backup.go: its backup copied by pages; pushsource.go: a push's
// older source read from a migrated copy, never migrated in place; and
// migrate.go: a state.json becomes it on first use), or, for a path
// not ending in .db, one JSON file (state.json, as earlier versions kept
// it) written whole and atomically (a temporary file, synced, renamed; the
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
// backendtest.Run in its tests, on both files. It imports state (the
// model), statefile (the codec), sqlstate (the tables and queries) and
// modernc.org/sqlite, backend (the interfaces it implements), safefile, filelock,
// api/pacefile (its shared pace), textfmt and version; it must not import
// config, plan, run or cli, nor another backend.
package local
