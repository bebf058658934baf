// Package cli holds the cobra commands: flags, exit codes and the wiring
// of each command to its operation and its view. It holds no workflow:
// plan and apply are run by internal/run (which cli feeds a backend.Backend,
// the service, the clock, the interrupts, a confirmation function and a
// view), and what they show is drawn by internal/views. Nothing outside
// this package knows about flags, and only cli and views about terminals.
//
// cli opens the state through the backend registry (backend.Open, with
// the backends of internal/state/backend/builtin) and never asks which
// kind of backend it has: what only some can do (workspaces, push, a
// backup, force-unlock, journal recovery, a shared pace) it asks of the
// abilities in internal/state/backend/abilities.go. It must not import a
// backend (internal/state/local, internal/state/pg).
package cli
