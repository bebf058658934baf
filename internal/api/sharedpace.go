package api

import "time"

// SharedPace is the pace of an API key shared with other processes: the
// service's rate limit belongs to the key, so a process that starts must
// wait for the last call another one made (pacefile.File keeps it next to
// the state). Errors are not fatal: the pacer then paces this process
// alone, and a 429 from a clash is retried.
type SharedPace interface {
	// Reserve records a call starting at now unless the last call of the
	// key is less than gap before now; then it records nothing and says
	// how long to wait.
	Reserve(now time.Time, gap time.Duration) (wait time.Duration, err error)
	// Extend moves the last call to t when t is later.
	Extend(t time.Time) error
}

// Share makes the pacer wait for, and record, the calls of the key in
// other processes through sp (nil: this process alone).
func (p *Pacer) Share(sp SharedPace) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shared = sp
}

// reserveShared checks the shared pace for a start at now; p.mu is held.
// An error of the shared pace is ignored (this process still paces
// itself) but counted.
func (p *Pacer) reserveShared(now time.Time) (ok bool, wait time.Duration) {
	if p.shared == nil {
		return true, 0
	}
	wait, err := p.shared.Reserve(now, p.gap())
	if err != nil {
		p.stats.SharedErrors++
		return true, 0
	}
	if wait > 0 {
		return false, wait
	}
	return true, 0
}
