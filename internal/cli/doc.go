// Package cli holds the cobra commands: the wiring of each command to its
// arguments, its operation and its view, and the exit codes. Each command
// lives in one file named after it (cmd_state_rm.go is leadsync state rm)
// with its cobra.Command (Use, Short, Long, Example) and a run function
// that receives the struct its parser made (internal/cli/arguments, wired
// by parseArgs): cli never reads a flag itself. What a command does to the
// state or to files is an operation of internal/run (which cli feeds a
// backend.Backend, the service, the clock, the interrupts, a confirmation
// function or a view); what it shows is drawn by internal/views. cli
// itself only loads the configuration, opens the state, reads what
// read-only commands print (state list, state show, state pull, show,
// completion), words run's results and errors, and sets the exit code.
// Nothing outside this package knows about flags, and only cli and views
// about terminals.
//
// cli opens the state through the backend registry (backend.Open, with
// the backends of internal/state/backend/builtin) and never asks which
// kind of backend it has: what only some can do (workspaces, push, a
// backup, force-unlock, journal recovery, a shared pace) it asks of the
// abilities in internal/state/backend/abilities.go. Every backend it opens
// is wrapped in run's rescue layer (run.Rescuing, keyed by where the
// state is, in the user's cache directory), so that every command folds
// in what an apply could not write. It must not import a backend
// (internal/state/local, internal/state/pg).
package cli
