// Package recovered turns a panic in a goroutine of leadsync's own (an
// apply's workers, a plan's readers, an export's pagers, a state's
// writers, the PostgreSQL stall watch) into an error its owner returns
// like any failure: a *Panic, holding the panic's value and the stack of
// the goroutine that panicked. cli.Run reports it as it reports a panic
// of the command itself: one message, the stack in a crash log. Without
// it, Go ends the process with a stack trace on the user's screen. It
// imports nothing of leadsync, so any package may import it.
package recovered
