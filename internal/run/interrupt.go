package run

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// watchInterrupts closes stop on the first interrupt (after calling
// notify) and calls cancel on the second. sig delivers the interrupts; nil
// means the process's SIGINT and SIGTERM. It returns a function that stops
// watching, and one that acts as a first interrupt (safe to call more than
// once, and after an interrupt).
func watchInterrupts(sig <-chan os.Signal, stop chan struct{}, cancel context.CancelFunc, notify func()) (unwatch, stopNow func()) {
	var once sync.Once
	stopNow = func() { once.Do(func() { close(stop) }) }
	var ch chan os.Signal
	if sig == nil {
		ch = make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		sig = ch
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sig:
				n++
				if n == 1 {
					notify()
					stopNow()
				} else {
					cancel()
					return
				}
			}
		}
	}()
	unwatch = func() {
		close(done)
		if ch != nil {
			signal.Stop(ch)
		}
	}
	return unwatch, stopNow
}
