// Package run holds the operations of the commands that lock, load,
// journal, commit or write: the workflow that the plan, apply, export,
// forget and state rm commands drive, as terraform's backend/local
// operations hold theirs, and the smaller ones of state push, state
// recover, force-unlock (ForceUnlock), the workspace commands
// (ListWorkspaces, WorkspaceNew, WorkspaceDelete, SelectWorkspace and
// SelectedWorkspace: the working copy's choice in .leadsync/workspace),
// state mv (StateMv: one journalled move event), fmt (FmtFiles, Fmt,
// FormatSource: configuration files rewritten in place) and fields
// --refresh (RefreshFields: the catalog cached).
//
// Apply takes the state's lock, loads the state, reads the remaining
// requests (first generation only, see HasBilling), builds the plan or
// checks a saved one, asks for confirmation, opens the journal, watches
// for interrupts (the first stops starting calls, the second cancels),
// runs the plan through engine (with the backend's claims of the
// enrichments in flight across the workspaces, claims.go, for a plan that
// enriches), commits the state and writes the exports. A
// plan whose only changes are spreadsheets to write opens no journal and
// commits nothing: it writes those spreadsheets and no others. A plan
// that reads no person in bulk runs on a partial state when the people
// are in a store (applyState: the records, the lead lists it reads,
// packed, and the people it names).
// Plan loads the state without a lock (EarlyLoad starts that load while
// the configuration is parsed), makes its one billing call and builds the
// plan; SavePlan writes it for a later apply. Export is the export
// command's operation (load without a lock, write every spreadsheet).
// Apply, Plan and Export read the working copy's export record
// (exportrec.Path: which configuration and which state each
// spreadsheet was last written from) for the plan, and Apply and Export
// update it once the files are written, after the final commit, so that it
// names the state as committed. Forget takes the lock, loads, refuses a
// PERSON that cannot be an identifier (a full name: *NotAPersonError, which
// lists the people of that name; nothing is written), journals one
// forget event per person, commits and drops the backup; StateRm takes the
// lock, loads, checks every address (an unknown one writes nothing: an
// *UnknownAddressError) and commits. Each returns what it did (Forgotten,
// RemovedRecord, export.Written) for the command to word.
//
// A paid answer survives a failed write: Rescuing is a layer around any
// backend, through which every command opens its state (rescued.go). A
// write of a result that fails is tried again for a while (the engine
// starts no call meanwhile); one that still fails is kept in a rescue
// file of the user's cache directory (internal/run/rescue), and the run
// stops; every command folds the rescue files in when it loads the
// state, and one that holds the lock writes them into the state and
// removes them.
//
// Everything from the outside world comes in through Deps: the state as a
// backend.Backend (this package uses only the interface and its
// abilities, never a backend's own types), the service as a
// constructor of api.Service (called only when a call is due, so a plan
// with --offline needs no key), the clock, the interrupts and how to tell
// a state never written. What the user
// sees goes out through a view the caller passes (ApplyView: the plan
// before confirmation, the progress printer, the interrupt notice, the
// note that the spreadsheets are written after one, the files written),
// and confirmation through a function. The data flows one
// way: cli parses flags and builds the Deps and the view (internal/views
// draws), run decides and returns; its errors say what went wrong, and the
// sentinel ones (ErrCancelled, ErrAborted, ErrSheetsSkipped, ErrFailed, ErrNoState,
// ErrBlankPerson, *NotAPersonError, *DiagnosticsError, *BillingError, *UnknownAddressError;
// a refused lock is the backend's backend.LockedError, naming the holder)
// tell the caller which exit code and message to give.
//
// Console (console.go) is leadsync console's loop: a ConsoleSession
// evaluates each line against the configuration's config.Scope and a
// state opened without a lock as a state.Base (its records at the
// start). Each where opens it again and reads its people a page at a
// time, with the values export.WhereValues gives a sheet's where; no
// snapshot stays open between lines. A where reading lead only as
// lead.<field>, or person.<field> of the fields export.WhereColumns
// names, reads those columns alone (state.Base.EachLead). Such a where
// remembers what it gave by the values it reads (config.WhereMemo); one
// reading lead otherwise is evaluated for each person. A ConsoleView
// shows the value, the selection or the diagnostics; a line that fails
// does not stop it. It calls nothing and writes nothing. Outputs (output.go) is leadsync
// output's: the people the Base holds of each output's blocks, counted
// once each.
//
// It imports api, catalog, config, engine, export, plan, state and
// state/backend, its own exportrec and rescue (and levenshtein for the
// addresses close to an unknown one, hcl's writer for fmt), and the leaves
// textfmt, address, kind (what state rm removes and counts) and recovered
// (a panic of its goroutines as an error). It must not import a backend (internal/state/local,
// internal/state/pg), cli,
// views, cobra or anything that knows of flags, terminals or colours, and
// it writes to no stream of its own.
package run
