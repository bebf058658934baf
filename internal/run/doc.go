// Package run holds the plan and apply operations: the workflow that the
// plan and apply commands drive, as terraform's backend/local operations
// hold theirs.
//
// Apply takes the state's lock, loads the state, reads the remaining
// requests (first generation only, see HasBilling), builds the plan or
// checks a saved one, asks for confirmation, opens the journal, watches
// for interrupts (the first stops starting calls, the second cancels),
// runs the plan through exec, commits the state and writes the exports.
// Plan loads the state without a lock, makes its one billing call and
// builds the plan. WriteExports is the export step both share with
// nothing else to do.
//
// Everything from the outside world comes in through Deps: the state as a
// state.Backend (the local file, state.Local, or a shared backend: this
// package uses only the interface, never *state.Store), the service as a
// constructor of api.Service (called only when a call is due, so a plan
// with --offline needs no key), the clock and the interrupts. What the user
// sees goes out through a view the caller passes (ApplyView: the plan
// before confirmation, the progress printer, the interrupt notice, the
// files written), and confirmation through a function. The data flows one
// way: cli parses flags and builds the Deps and the view (internal/views
// draws), run decides and returns; its errors say what went wrong, and the
// sentinel ones (ErrCancelled, ErrAborted, ErrFailed, *DiagnosticsError,
// *BillingError) tell the caller which exit code and message to give.
//
// It imports api, config, exec, export, plan and state. It must not import
// cli, views, cobra or anything that knows of flags, terminals or colours,
// and it writes to no stream of its own.
package run
