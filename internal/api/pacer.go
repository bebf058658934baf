package api

import (
	"context"
	"crypto/sha256"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// SafetyMargin is how much wider than 1/rate the gap between two call starts
// is. A strict server that answers 429 to a second call within one second
// then still sees every gap above one second when one request takes up to
// 20 ms (at 1 call/s) longer to reach it than the one before; the price is
// 2% of the rate.
const SafetyMargin = 0.02

// maxSlowdown bounds how far repeated 429s stretch the gap between starts.
const maxSlowdown = 8

// slowdownStep is the factor one 429 stretches the gap by; every answer that
// is not a 429 shrinks it by the same factor until the configured rate is
// reached again.
const slowdownStep = 2.0

// Pacer spaces the starts of calls to one API key: at most rate starts per
// second (with SafetyMargin), at most as many calls in flight as the
// latencies observed call for (Little's law), never above parallelism, waiting
// callers served in arrival order. After a 429 it pauses every caller and
// slows down, then recovers with each successful answer.
//
// The spacing of starts is a token bucket of golang.org/x/time/rate, one
// token per interval (1/rate plus the margin, stretched after 429s) with a
// burst of one, driven with the times of the injected clock (TokensAt,
// AllowN), so tests drive it with a fake one. A start takes the token at
// the moment it really starts, never at a planned moment: each start is
// allowed one interval after the previous actual start, so a late wake-up
// costs a little rate but never eats into the margin, which is there for
// the time a request takes from here to the server's clock (and which a
// strict server measures). The rest is the pacer's own: the queue in
// arrival order, the calls in flight adapting to latency, the pause and
// slowdown after a 429, and the pace shared with other processes
// (docs/decisions.md says why rate.Limiter's Wait and Reserve are not
// used). A call let go (Take) holds the calls behind it until it departs
// (Ticket.Depart, right before its request is written), and the next
// starts one gap after the departure: whatever the caller waits for in
// between (its start hook, noting the call in the state), no two requests
// leave closer than the gap.
type Pacer struct {
	clock Clock

	mu          sync.Mutex
	base        time.Duration // 1/rate: the smallest gap between two starts
	interval    time.Duration // base*(1+SafetyMargin): the planned gap
	parallelism int
	inFlight    int
	last        time.Time // the last start (or send, see Sent); zero before the first
	pausedUntil time.Time
	slowdown    float64 // >= 1; stretches interval after 429s
	// spacing holds the token of the next start: one per gap(), a burst
	// of one (no catching up after a pause or a late start), taken at
	// last. respace makes it anew when the gap or last moves.
	spacing *rate.Limiter
	queue   []*waiter
	changed chan struct{} // closed and replaced on every change of state
	stats   PacerStats
	lat     latencyWindow   // latencies of the last calls, for limitLocked
	flying  []time.Time     // start times of the calls in flight
	shared  SharedPace      // the key's pace in other processes; nil: none
	onStart func(time.Time) // test hook, called with p.mu held
	// leaving is the start (by its number, seq counts them) that left the
	// queue and has not departed yet (Ticket.Depart) nor ended: 0 when
	// none. No other call starts meanwhile, so a caller held up between
	// its start and its request (a start hook waiting for the state) can
	// never be overtaken, nor followed closer than a gap by the calls that
	// queued behind it.
	leaving uint64
	seq     uint64
}

// Ticket is a call the pacer let start (Take). Depart when its request is
// about to be written; Release when the call ended (or was never sent).
type Ticket struct {
	p     *Pacer
	id    uint64
	start time.Time
	once  sync.Once
}

// Depart says the request is about to be written: the next call may start
// one gap after now (not after the moment the ticket was taken), and only
// from now. Call it right before sending, after anything that may wait.
func (t *Ticket) Depart() { t.p.depart(t.id) }

// Release ends the call (answer read, failed, or never sent); the first
// call counts.
func (t *Ticket) Release() { t.once.Do(func() { t.p.release(t.id, t.start) }) }

// waiter is a place in the queue. It must not be zero-sized: pointers to
// distinct zero-sized values may be equal.
type waiter struct{ _ byte }

// PacerStats counts what a pacer did, for benchmarks and debugging.
type PacerStats struct {
	Starts      int       // calls started
	Sent        int       // requests reported written with Sent
	Throttles   int       // 429s reported with Throttle
	FirstStart  time.Time // zero before the first start
	LastStart   time.Time
	MaxInFlight int
	// SharedErrors counts failures to read or write the shared pace.
	SharedErrors int
}

// StartRate is the achieved rate of call starts per second between the first
// and the last start; 0 with fewer than two starts.
func (s PacerStats) StartRate() float64 {
	d := s.LastStart.Sub(s.FirstStart)
	if s.Starts < 2 || d <= 0 {
		return 0
	}
	return float64(s.Starts-1) / d.Seconds()
}

// NewPacer returns a pacer for rate call starts per second (<= 0: 1) and
// at most parallelism calls in flight (<= 0: DefaultParallelism) on clock
// (nil: the system clock). The number in flight adapts to the latencies
// observed, up to parallelism (see Limit).
func NewPacer(rate float64, parallelism int, clock Clock) *Pacer {
	if clock == nil {
		clock = SystemClock{}
	}
	p := &Pacer{clock: clock, slowdown: 1, changed: make(chan struct{})}
	p.configure(rate, parallelism)
	p.respace()
	return p
}

func (p *Pacer) configure(rate float64, parallelism int) {
	if rate <= 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		rate = 1
	}
	if parallelism <= 0 {
		parallelism = DefaultParallelism
	}
	p.base = time.Duration(float64(time.Second) / rate)
	p.interval = time.Duration(float64(p.base) * (1 + SafetyMargin))
	p.parallelism = parallelism
}

// Rate returns the configured rate in call starts per second.
func (p *Pacer) Rate() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return float64(time.Second) / float64(p.base)
}

// Parallelism returns the configured ceiling of calls in flight.
func (p *Pacer) Parallelism() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.parallelism
}

// Stats returns what the pacer did so far.
func (p *Pacer) Stats() PacerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Wait blocks until the caller may start a call, or ctx is done, and
// departs at once (Take, then Depart). The caller must call release when
// the call ended (answer read or failed).
func (p *Pacer) Wait(ctx context.Context) (release func(), err error) {
	t, err := p.Take(ctx)
	if err != nil {
		return nil, err
	}
	t.Depart()
	return t.Release, nil
}

// Take blocks until the caller may start a call, or ctx is done. Until
// the ticket departs or is released, no other call starts: whatever the
// caller waits for between Take and Depart (a start hook noting the call
// in the state, which may wait for a database to come back), the calls
// behind it wait too, and the next starts one gap after the departure.
func (p *Pacer) Take(ctx context.Context) (*Ticket, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := new(waiter)
	p.mu.Lock()
	p.queue = append(p.queue, w)
	for {
		var timer <-chan time.Time
		if p.queue[0] == w && p.inFlight < p.limitLocked() && p.leaving == 0 {
			now := p.clock.Now()
			ok, wait := p.tryStart(now)
			if ok {
				p.queue = p.queue[1:]
				p.seq++
				p.leaving = p.seq
				t := &Ticket{p: p, id: p.seq, start: now}
				p.broadcast()
				p.mu.Unlock()
				return t, nil
			}
			timer = p.clock.After(wait)
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			p.mu.Lock()
			for i, q := range p.queue {
				if q == w {
					p.queue = append(p.queue[:i:i], p.queue[i+1:]...)
					break
				}
			}
			p.broadcast()
			p.mu.Unlock()
			return nil, ctx.Err()
		case <-timer:
		case <-changed:
		}
		p.mu.Lock()
	}
}

// tryStart starts a call at now if the schedule allows it, else says how long
// to wait. It ignores the queue and the in-flight limit; p.mu is held.
func (p *Pacer) tryStart(now time.Time) (ok bool, wait time.Duration) {
	if wait := p.waitLocked(now); wait > 0 {
		return false, wait
	}
	if ok, wait := p.reserveShared(now); !ok {
		return false, wait
	}
	if !p.spacing.AllowN(now, 1) {
		// waitLocked saw the token; cannot happen, but never start
		// without it.
		return false, time.Nanosecond
	}
	p.last = now
	p.inFlight++
	p.flying = append(p.flying, now)
	if p.stats.Starts == 0 {
		p.stats.FirstStart = now
	}
	p.stats.Starts++
	p.stats.LastStart = now
	p.stats.MaxInFlight = max(p.stats.MaxInFlight, p.inFlight)
	if p.onStart != nil {
		p.onStart(now)
	}
	return true, 0
}

// gap is the interval between starts now: interval stretched by the
// slowdown after 429s; p.mu is held.
func (p *Pacer) gap() time.Duration {
	return time.Duration(float64(p.interval) * p.slowdown)
}

// respace makes the token bucket of the starts for the current gap, its
// token taken at the last start: the next start is due one gap after it.
// A new bucket rather than SetLimitAt, because a changed gap applies to
// the time since the last start (after a 429 is answered with success the
// next start may come at once when the normal gap has passed), where
// SetLimitAt would keep the tokens gathered at the old rate, and because a
// later send (Sent) moves the last start, which no Limiter method does.
// p.mu is held (or p is not shared yet).
func (p *Pacer) respace() {
	p.spacing = rate.NewLimiter(rate.Every(p.gap()), 1)
	if !p.last.IsZero() {
		p.spacing.AllowN(p.last, 1)
	}
}

// waitLocked is how long a start at now must wait for the pause after a
// 429 and for its token; 0 when it may start. p.mu is held.
func (p *Pacer) waitLocked(now time.Time) time.Duration {
	wait := p.pausedUntil.Sub(now)
	if missing := 1 - p.spacing.TokensAt(now); missing > 0 {
		// Rounded to the nanosecond: the float arithmetic of the bucket
		// is a hair off whole durations, and AllowN takes the token
		// when less than a nanosecond's worth is missing.
		secs := missing / float64(p.spacing.Limit())
		wait = max(wait, time.Duration(math.Round(secs*float64(time.Second))))
	}
	return max(wait, 0)
}

// Sent reports that a started request was written to the connection (its
// headers sent). The next start is then spaced from this moment when it is
// later than the start: a request that first had to open a connection (TCP
// and TLS handshakes) reaches the server later than one on a warm
// connection, and the next call must not arrive too soon after it.
func (p *Pacer) Sent() {
	p.mu.Lock()
	p.stats.Sent++
	now := p.clock.Now()
	later := now.After(p.last)
	if later {
		p.last = now
		p.respace()
	}
	shared := p.shared
	p.mu.Unlock()
	if later && shared != nil {
		_ = shared.Extend(now)
	}
}

// Delay estimates how long a call asked for now would wait for its start.
func (p *Pacer) Delay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitLocked(p.clock.Now()) + time.Duration(len(p.queue))*p.gap()
}

// depart ends the start id: the next start is spaced from now when that
// is later than the last start, and may come (see Take). The pace shared
// with other processes moves when the request is written (Sent), just
// after.
func (p *Pacer) depart(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leaving == id {
		p.leaving = 0
	}
	if now := p.clock.Now(); now.After(p.last) {
		p.last = now
		p.respace()
	}
	p.broadcast()
}

// release ends a call started at start (ticket id); its latency feeds the
// limit of calls in flight.
func (p *Pacer) release(id uint64, start time.Time) {
	p.mu.Lock()
	if p.leaving == id {
		p.leaving = 0 // never sent: the next may start
	}
	p.inFlight--
	p.flyingDone(start)
	p.lat.add(p.clock.Now().Sub(start))
	p.broadcast()
	p.mu.Unlock()
}

// Throttle reports a 429: no call starts before wait has passed, and the gap
// between starts is stretched until answers succeed again.
func (p *Pacer) Throttle(wait time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Throttles++
	if until := p.clock.Now().Add(wait); until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
	p.slowdown = min(p.slowdown*slowdownStep, maxSlowdown)
	p.respace()
	p.broadcast()
}

// Succeeded reports an answer that was not a 429: the pacer recovers one step
// towards the configured rate.
func (p *Pacer) Succeeded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.slowdown > 1 {
		p.slowdown = max(p.slowdown/slowdownStep, 1)
		p.respace()
		p.broadcast()
	}
}

// broadcast wakes every waiter to re-check the state; p.mu is held.
func (p *Pacer) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// tighten lowers the rate and parallelism to those given when they are
// stricter, so that clients of one key configured differently never exceed
// the stricter settings together.
func (p *Pacer) tighten(rate float64, parallelism int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	oldBase, oldInterval, oldParallelism := p.base, p.interval, p.parallelism
	p.configure(rate, parallelism)
	if oldBase > p.base {
		p.base, p.interval = oldBase, oldInterval
	}
	p.parallelism = min(p.parallelism, oldParallelism)
	p.respace()
	p.broadcast()
}

// pacers holds one pacer per API key (by a hash of the key, so the key
// itself is not kept here), shared by every client of that key in the
// process: the service's rate limit applies to the key, not to a client.
var pacers struct {
	sync.Mutex
	m map[[sha256.Size]byte]*Pacer
}

// SharedPacer returns the process's pacer for key, creating it with the given
// settings; an existing one is tightened to them when they are stricter.
func SharedPacer(key string, rate float64, parallelism int, clock Clock) *Pacer {
	h := sha256.Sum256([]byte("leadsync pacer\x00" + key))
	pacers.Lock()
	defer pacers.Unlock()
	if pacers.m == nil {
		pacers.m = make(map[[sha256.Size]byte]*Pacer)
	}
	if p, ok := pacers.m[h]; ok {
		p.tighten(rate, parallelism)
		return p
	}
	p := NewPacer(rate, parallelism, clock)
	pacers.m[h] = p
	return p
}
