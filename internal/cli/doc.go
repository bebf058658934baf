// Package cli holds the cobra commands: flags, output and exit codes. It
// wires config, plan, exec, state and export together and holds no business
// logic of its own. Nothing outside this package knows about flags or
// terminals.
package cli
