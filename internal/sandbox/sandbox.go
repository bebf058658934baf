package sandbox

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/sandbox/knobs"
)

// DefaultKey is the API key the sandbox accepts unless Options.Key says
// otherwise. It is no secret: the sandbox prints it.
const DefaultKey = knobs.DefaultKey

// BaseURL is the base address of both generations when the sandbox is used
// through Transport: the first generation under BaseURL/v1/..., the second
// at BaseURL/search and BaseURL/scrap. Any host works with Transport; this
// one cannot resolve, so a request that misses the transport fails loudly.
const BaseURL = "http://sandbox.leadsync.invalid"

// BaseURLV2 is the base of the second generation: the same handler serves
// both, so it equals BaseURL.
const BaseURLV2 = BaseURL

// InvoicingStartDate is what billing reports as "Invoicing start date".
const InvoicingStartDate = "2024-03-15"

// Defaults of Options.
const (
	DefaultPeople  = knobs.DefaultPeople
	DefaultCredits = knobs.DefaultCredits
	DefaultQuota   = knobs.DefaultQuota
	DefaultSlowBy  = knobs.DefaultSlowBy
)

// Default latencies: searches are slow (the service runs them live), reads
// are not delayed.
var (
	DefaultSearchLatency = [2]time.Duration{50 * time.Millisecond, 300 * time.Millisecond}
	DefaultReadLatency   = [2]time.Duration{0, 0}
)

// Options configure a sandbox. The zero value is a working sandbox with the
// defaults below.
type Options struct {
	// Key is the accepted API key; "" means DefaultKey.
	Key string
	// Seed fixes the population (and latencies): the same seed gives the
	// same members and the same answers.
	Seed int64
	// People is the size of the population; 0 means DefaultPeople.
	People int
	// RateLimit is the number of call starts allowed per second; 0 means 1,
	// a negative value disables the limit. See Server for the exact rule.
	RateLimit float64
	// RateWindow is the length of the sliding window the limit is checked
	// over; 0 means one second, as the spec says. A shorter window makes a
	// scaled-down limit as strict as the real one: RateLimit 100 with
	// RateWindow 10ms allows one call per 10 ms, not bursts of 100.
	RateWindow time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx is done, returning ctx.Err() in that case;
	// nil means a real timer. Latencies and slow faults go through it.
	Sleep func(ctx context.Context, d time.Duration) error
	// SearchLatency and ReadLatency are the [min, max] spread of the delay
	// before an answer, for searches and for every other operation. The
	// delay of one call is fixed by Seed and the call's sequence number. A
	// zero value means the defaults (50–300 ms for searches, none for
	// reads); a negative max means none; NoLatency turns both off.
	SearchLatency, ReadLatency [2]time.Duration
	NoLatency                  bool
	// Credits is the starting enrich credit balance; 0 means
	// DefaultCredits, a negative value means none.
	Credits int
	// CreditsPerEnrich is what one enrich costs; 0 means 1.
	CreditsPerEnrich int
	// Quota is the starting number of remaining requests this month; 0
	// means DefaultQuota, a negative value means none.
	Quota int
	// Faults are the faults injected from the start; see SetFaults.
	Faults Faults
	// Drift is the share of members who move at each epoch, and Epoch the
	// epoch the population is at (drift.go); 0 and 0 are the generated
	// population. Values out of range (see CheckDrift) are clamped.
	Drift float64
	Epoch int
	// PrivatePositions makes a private profile's answer carry the member's
	// positions (current and timeline), as the spec allows (2.4 blanks
	// nothing for private: true) and some deployments do; private members
	// then go on moving as the population drifts. Off, a private profile
	// shows its name, avatar and address only, and private members move no
	// more.
	PrivatePositions bool
}

// Faults are the injected failures (knobs.Faults: their type, their checks
// and their NAME=VALUE spelling live in a leaf the command line reads too).
type Faults = knobs.Faults

// Op is one operation of the service.
type Op int

// Operations of both generations.
const (
	OpFields   Op = iota + 1 // GET /v1/scrap/fields
	OpSearch                 // POST /v1/scrap
	OpPage                   // POST /v1/scrap/page
	OpEnrich                 // POST /v1/scrap/enrich
	OpBilling                // GET /v1/billing
	OpSearchV2               // POST /search
	OpPageV2                 // POST /scrap
)

func (o Op) String() string {
	switch o {
	case OpFields:
		return "fields"
	case OpSearch:
		return "search"
	case OpPage:
		return "page"
	case OpEnrich:
		return "enrich"
	case OpBilling:
		return "billing"
	case OpSearchV2:
		return "search (gen 2)"
	case OpPageV2:
		return "page (gen 2)"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Gen1 reports whether the operation belongs to the first generation, the
// only one with a monthly quota.
func (o Op) Gen1() bool { return o >= OpFields && o <= OpBilling }

// Fault is one kind of injected fault.
type Fault int

// Kinds of injected faults.
const (
	FaultStatus500 Fault = iota + 1
	FaultHTML
	FaultDrop
	FaultTruncate
	FaultSlow
	FaultStorm429
	FaultRevoked
)

func (f Fault) String() string {
	switch f {
	case FaultStatus500:
		return "500"
	case FaultHTML:
		return "html"
	case FaultDrop:
		return "drop"
	case FaultTruncate:
		return "truncate"
	case FaultSlow:
		return "slow"
	case FaultStorm429:
		return "storm"
	case FaultRevoked:
		return "revoked"
	case FaultBad:
		return "bad answer"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// Stats count what the sandbox saw. Every map is non-nil.
type Stats struct {
	// Calls is every request received, rejected ones included.
	Calls int
	// Accepted counts calls that passed the key and rate checks: the ones
	// the rate window counts.
	Accepted int
	// ByOp counts accepted calls per operation.
	ByOp map[Op]int
	// Status counts answers per HTTP status; dropped calls have none.
	Status map[int]int
	// RateLimited and Forbidden count 429 and 403 answers.
	RateLimited, Forbidden int
	// Faults counts injected faults per kind.
	Faults map[Fault]int
	// Abandoned counts calls whose client went away (cancel, timeout)
	// during the latency; their work was done and paid.
	Abandoned int
	// CreditsSpent and RequestsSpent are what enrich credits and monthly
	// quota went down by.
	CreditsSpent, RequestsSpent int
	// Enriched counts, per page name, the enrich calls that spent credits
	// (dropped and abandoned ones included): more than 1 means someone paid
	// twice for one person.
	Enriched map[string]int
	// Starts are the start times of accepted calls, in order.
	Starts []time.Time
	// MaxInFlight is the largest number of accepted calls under way at once.
	MaxInFlight int
}

// Server is the sandbox service: an http.Handler for both generations. It
// is safe for concurrent use.
//
// Rate limit: with RateLimit r and RateWindow w (default 1 s), a call is
// answered 429 when accepting it would put more than k = max(1, floor(r*w))
// accepted call starts within any window of k/r seconds; for r = 1: a
// second call less than one second after the last one. Start times come from
// Options.Now at arrival; calls answered 429 or 403 do not count. One window
// serves all operations and both generations, as in the spec.
type Server struct {
	opts Options
	key  string
	pop  atomic.Pointer[population] // the population at the current epoch
	// popReady is closed once New's population is generated (population
	// waits for it). The first call that reads members starts it
	// (startPopulation): a process whose calls read none (an apply of a
	// removal alone: its billing call) holds no member (57 MB at the
	// default size).
	popReady chan struct{}
	popStart sync.Once
	popPanic error // the generator's panic (a bug), set before popReady is closed
	firstPop func() *population
	limit    int           // k: calls per window
	window   time.Duration // k/r
	cost     int

	mu       sync.Mutex
	faults   Faults
	storm    int // 429s left of the storm
	sinceSet int // accepted calls since SetFaults, for RevokeKeyAfter
	seq      uint64
	recent   []time.Time // accepted starts within the window
	credits  int
	quota    int
	inFlight int
	stats    Stats
}

// New builds a sandbox. The population is generated once, in the
// background from here: the calls that read it wait for it (population),
// the others (billing, fields) answer at once, so that a client's first
// call is not held up by it.
func New(opts Options) *Server {
	if opts.Key == "" {
		opts.Key = DefaultKey
	}
	if opts.People <= 0 {
		opts.People = DefaultPeople
	}
	if opts.RateLimit == 0 {
		opts.RateLimit = 1
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = realSleep
	}
	if opts.SearchLatency == [2]time.Duration{} {
		opts.SearchLatency = DefaultSearchLatency
	}
	if opts.ReadLatency == [2]time.Duration{} {
		opts.ReadLatency = DefaultReadLatency
	}
	for _, lat := range []*[2]time.Duration{&opts.SearchLatency, &opts.ReadLatency} {
		if opts.NoLatency || lat[1] < 0 {
			*lat = [2]time.Duration{}
		}
	}
	s := &Server{opts: opts, key: opts.Key, cost: max(1, opts.CreditsPerEnrich)}
	s.credits = defaultCount(opts.Credits, DefaultCredits)
	s.quota = defaultCount(opts.Quota, DefaultQuota)
	if r := opts.RateLimit; r > 0 {
		w := opts.RateWindow
		if w <= 0 {
			w = time.Second
		}
		s.limit = max(1, int(math.Floor(r*w.Seconds()+1e-9)))
		s.window = time.Duration(float64(s.limit) / r * float64(time.Second))
	}
	opts.Drift = min(1, max(0, opts.Drift))
	if math.IsNaN(opts.Drift) {
		opts.Drift = 0
	}
	opts.Epoch = min(MaxEpoch, max(0, opts.Epoch))
	s.opts = opts
	s.popReady = make(chan struct{})
	s.firstPop = func() *population {
		return generatePopulation(opts.Seed, opts.People, opts.Drift, opts.Epoch, opts.PrivatePositions)
	}
	s.stats = Stats{ByOp: map[Op]int{}, Status: map[int]int{}, Faults: map[Fault]int{}, Enriched: map[string]int{}}
	s.setFaultsLocked(opts.Faults)
	return s
}

// population is a generated (or drifted) population with its index.
// Members never change after generation, so sandboxes with the same seed
// and size share one: tests build many sandboxes, and generating tens of
// thousands of members is the costly part of New.
type population struct {
	members []*Member
	byPage  map[string]*Member
	// changes are the drift's ground truth up to the population's epoch,
	// by epoch then population order; none for a generated population.
	changes []Change
}

var (
	populationsMu sync.Mutex
	populations   = map[[2]int64]*population{}
)

func populationFor(seed int64, people int) *population {
	populationsMu.Lock()
	defer populationsMu.Unlock()
	key := [2]int64{seed, int64(people)}
	if p, ok := populations[key]; ok {
		return p
	}
	p := &population{members: generate(seed, people), byPage: make(map[string]*Member, people)}
	for _, m := range p.members {
		p.byPage[pageKey(m.PageName)] = m
	}
	populations[key] = p
	return p
}

func defaultCount(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func realSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetFaults replaces the injected faults mid-run. Storm429 and
// RevokeKeyAfter count from this call.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setFaultsLocked(f)
}

func (s *Server) setFaultsLocked(f Faults) {
	if f.SlowBy == 0 {
		f.SlowBy = DefaultSlowBy
	}
	if f.HTMLStatus == 0 {
		f.HTMLStatus = 200
	}
	s.faults = f
	s.storm = f.Storm429
	s.sinceSet = 0
}

// SetCredits sets the enrich credit balance.
func (s *Server) SetCredits(n int) {
	s.mu.Lock()
	s.credits = max(0, n)
	s.mu.Unlock()
}

// SetQuota sets the remaining requests this month.
func (s *Server) SetQuota(n int) {
	s.mu.Lock()
	s.quota = max(0, n)
	s.mu.Unlock()
}

// Credits returns the current enrich credit balance.
func (s *Server) Credits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.credits
}

// Quota returns the remaining requests this month.
func (s *Server) Quota() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quota
}

// Key returns the API key the sandbox accepts.
func (s *Server) Key() string { return s.key }

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	stats := s.stats
	stats.ByOp = maps.Clone(s.stats.ByOp)
	stats.Status = maps.Clone(s.stats.Status)
	stats.Faults = maps.Clone(s.stats.Faults)
	stats.Enriched = maps.Clone(s.stats.Enriched)
	stats.Starts = slices.Clone(s.stats.Starts)
	return stats
}

// generatePopulation is New's populationAt (a variable for the test of
// the calls that answer while it runs).
var generatePopulation = populationAt

// population is the population at the current epoch, once New's is
// generated.
func (s *Server) population() *population {
	s.waitPopulation()
	return s.pop.Load()
}

// startPopulation starts generating New's population in the background,
// once: a call that reads none (billing) answers meanwhile, and never
// waits for it.
func (s *Server) startPopulation() {
	s.popStart.Do(func() {
		go func() {
			defer close(s.popReady)
			defer recovered.Catch(&s.popPanic)
			s.pop.Store(s.firstPop())
		}()
	})
}

// waitPopulation waits for New's population, started if it was not.
func (s *Server) waitPopulation() {
	s.startPopulation()
	<-s.popReady
	recovered.Raise(s.popPanic) // in the caller's goroutine, with the generator's stack
}

// Population returns the members at the current epoch, in their fixed
// order (those who left the network are not among them). The members are
// shared: callers must not modify them.
func (s *Server) Population() []*Member { return slices.Clone(s.population().members) }

// Member returns the member with the given page name, in any case, as of
// the current epoch; false for a page name nobody has, or a member who left
// the network.
func (s *Server) Member(pageName string) (*Member, bool) {
	m, ok := s.population().byPage[pageKey(pageName)]
	return m, ok
}

// CheckDrift reports a drift share or an epoch New and SetDrift would
// clamp: the drift is a share from 0 to 1, the epoch 0 to MaxEpoch.
func CheckDrift(drift float64, epoch int) error { return knobs.CheckDrift(drift, epoch) }

// SetDrift moves the population to epoch with the given drift share, as if
// time had passed: the calls from then on see it. Quota, credits, the rate
// window and the counters stay as they are.
func (s *Server) SetDrift(drift float64, epoch int) error {
	if err := knobs.CheckDrift(drift, epoch); err != nil {
		return err
	}
	s.mu.Lock()
	s.opts.Drift, s.opts.Epoch = drift, epoch
	private := s.opts.PrivatePositions
	s.mu.Unlock()
	s.waitPopulation() // New's is stored first
	s.pop.Store(populationAt(s.opts.Seed, s.opts.People, drift, epoch, private))
	return nil
}

// SetPrivatePositions sets Options.PrivatePositions: whether a private
// profile's answer carries the member's positions (and private members
// move as the population drifts). The calls from then on see it.
func (s *Server) SetPrivatePositions(on bool) {
	s.mu.Lock()
	s.opts.PrivatePositions = on
	drift, epoch := s.opts.Drift, s.opts.Epoch
	s.mu.Unlock()
	s.waitPopulation() // New's is stored first
	s.pop.Store(populationAt(s.opts.Seed, s.opts.People, drift, epoch, on))
}

// PrivatePositions reports Options.PrivatePositions as now set.
func (s *Server) PrivatePositions() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.PrivatePositions
}

// Drift returns the drift share and the epoch the population is at.
func (s *Server) Drift() (drift float64, epoch int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.Drift, s.opts.Epoch
}

// Changes returns the ground truth of the drift: every change of every
// member from epoch 1 to the current epoch, by epoch, then in population
// order. A member's job at epoch e is the After of their last change up to
// e, or (with none) the Before of their first change, or (with no change
// at all) what Member shows.
func (s *Server) Changes() []Change { return slices.Clone(s.population().changes) }
