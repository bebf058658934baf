package recovered

import (
	"errors"
	"runtime/debug"
)

// Panic is a panic recovered in a goroutine: a bug of leadsync, which
// ends the command as an internal error (exit 1).
type Panic struct {
	// Value is what the goroutine panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, as it panicked.
	Stack []byte
}

// Error says that leadsync failed on a bug, without the panic's value:
// that may hold a secret, which cli.Run redacts before it shows it.
func (p *Panic) Error() string { return "an internal error of leadsync" }

// Catch, deferred by a goroutine (defer recovered.Catch(&err)), turns a
// panic of it into a *Panic in *err; a panic with a *Panic (an owner
// that raised again what its goroutine recovered) keeps the first stack.
// It must be the deferred function itself: recover works only there.
func Catch(err *error) {
	if v := recover(); v != nil {
		*err = wrap(v)
	}
}

// Call calls fn, its panic returned as a *Panic.
func Call(fn func() error) (err error) {
	defer Catch(&err)
	return fn()
}

func wrap(v any) *Panic {
	if p, ok := v.(*Panic); ok {
		return p
	}
	return &Panic{Value: v, Stack: debug.Stack()}
}

// Raise panics again, in the owner's goroutine, with a *Panic its
// goroutine recovered; another error or nil does nothing. An owner with
// no error to return uses it, so that the panic reaches whoever recovers
// the owner's (cli.Run) with the stack of the goroutine that panicked.
func Raise(err error) {
	if p, ok := errors.AsType[*Panic](err); ok {
		panic(p)
	}
}

// First is the error an owner returns of those its goroutines gave: a
// *Panic first, so that a bug is never hidden behind the failure it
// caused, else the first error that is not nil.
func First(errs ...error) error {
	var first error
	for _, err := range errs {
		if _, ok := errors.AsType[*Panic](err); ok {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}
