package run

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/leadsync/leadsync/internal/recovered"
)

// watchInterrupts closes stop on the first interrupt (then calls notify)
// and calls cancel on the second. sig delivers the interrupts; nil means
// the process's SIGINT and SIGTERM. It returns a function that stops
// watching, one that acts as a first interrupt without a notice (safe to
// call more than once, and after an interrupt: a closed standard output),
// and one that makes any later interrupt cancel (the spreadsheets written
// after a stop: a Ctrl-C then skips them). A user's first Ctrl-C while
// calls are in flight always waits for them. A panic of notify (a bug) leaves the run
// stopping as the interrupt asked, the watch going on (a second interrupt
// still cancels), and unwatch raises it again.
func watchInterrupts(sig <-chan os.Signal, stop chan struct{}, cancel context.CancelFunc, notify func()) (unwatch, stopNow, skipOnNext func()) {
	var once sync.Once
	stopNow = func() { once.Do(func() { close(stop) }) }
	var skip atomic.Bool
	skipOnNext = func() { skip.Store(true) }
	var ch chan os.Signal
	if sig == nil {
		ch = make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		sig = ch
	}
	done, ended := make(chan struct{}), make(chan struct{})
	var bug error
	go func() {
		defer close(ended)
		defer func() {
			if bug != nil {
				stopNow() // a bug of the watch: stop, never abort
			}
		}()
		defer recovered.Catch(&bug)
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sig:
				if n++; n > 1 || skip.Load() { // a second interrupt, or one past skipOnNext
					cancel()
					return
				}
				stopNow() // first: a panic of the notice still stops
				bug = recovered.Call(func() error { notify(); return nil })
			}
		}
	}()
	unwatch = func() {
		close(done)
		if ch != nil {
			signal.Stop(ch)
		}
		<-ended
		recovered.Raise(bug)
	}
	return unwatch, stopNow, skipOnNext
}
