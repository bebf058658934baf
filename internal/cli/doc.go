// Package cli holds the cobra commands: flags, exit codes and the wiring
// of each command to its operation and its view. It holds no workflow:
// plan and apply are run by internal/run (which cli feeds a backend.Backend,
// the service, the clock, the interrupts, a confirmation function and a
// view), and what they show is drawn by internal/views. Nothing outside
// this package knows about flags, and only cli and views about terminals.
package cli
