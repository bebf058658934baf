package recovered

import (
	"errors"
	"strings"
	"testing"
)

// goroutine runs fn on a goroutine of its own and returns its panic.
func goroutine(fn func()) error {
	done := make(chan error)
	go func() {
		var err error
		defer func() { done <- err }()
		defer Catch(&err)
		fn()
	}()
	return <-done
}

func panicsHere() { panic("a bug") }

// TestAPanicKeepsItsGoroutinesStack: a goroutine's panic is a *Panic
// with its value and the stack of that goroutine; raised again in the
// owner and caught there, it keeps the first stack.
func TestAPanicKeepsItsGoroutinesStack(t *testing.T) {
	err := goroutine(panicsHere)
	p, ok := errors.AsType[*Panic](err)
	if !ok || p.Value != "a bug" || !strings.Contains(string(p.Stack), "recovered.panicsHere") {
		t.Fatalf("%v: want a *Panic of panicsHere with its stack", err)
	}
	again := goroutine(func() { Raise(err) })
	if again != err {
		t.Fatalf("raised again: %v, want the first *Panic", again)
	}
	if err := goroutine(func() { Raise(errors.New("a failure")); Raise(nil) }); err != nil {
		t.Fatalf("Raise of an error that is no panic: %v, want nothing raised", err)
	}
}

// TestFirstPrefersAPanic: an owner returns its goroutines' panic before
// any other failure, else the first failure.
func TestFirstPrefersAPanic(t *testing.T) {
	failure, other := errors.New("a failure"), errors.New("another")
	bug := Call(func() error { panic("a bug") })
	for _, c := range []struct {
		errs []error
		want error
	}{
		{nil, nil},
		{[]error{nil, nil}, nil},
		{[]error{nil, failure, other}, failure},
		{[]error{failure, bug}, bug},
		{[]error{bug, failure}, bug},
	} {
		if got := First(c.errs...); got != c.want {
			t.Errorf("First(%v) = %v, want %v", c.errs, got, c.want)
		}
	}
}
