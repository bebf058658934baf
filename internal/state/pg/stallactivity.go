package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// activity is what PostgreSQL says a session is doing (pg_stat_activity).
type activity struct {
	state    string  // "active", "idle in transaction", ...; "" once the session is gone
	waitType string  // wait_event_type: "Lock" while it waits for one
	blockers []int32 // the sessions holding the lock it waits for
	waited   float64 // seconds it has waited for that lock; 0 when unknown
	// inState is how long the session has been in its state (the server's
	// now() less state_change); 0 when unknown.
	inState time.Duration
}

// running says the server is running the session's statement, not
// waiting for a lock nor for its client: the statement makes progress.
func (a activity) running() bool {
	return a.state == "active" && a.waitType != "Lock" && !a.waitsForClient()
}

// waitsForClient says the server waits inside the session's statement
// for its client (wait_event_type Client: a COPY's next rows): the
// client may be sending them, or may have stopped, as an idle session's.
func (a activity) waitsForClient() bool { return a.state == "active" && a.waitType == "Client" }

// betweenSteps says the session left its last statement less than grace
// ago: it is idle (in a transaction or not) because its client is
// preparing the next step, not because the client stopped.
func (a activity) betweenSteps(grace time.Duration) bool {
	return strings.HasPrefix(a.state, "idle") && a.inState < grace
}

// why says why a session not running its statement was cut.
func (a activity) why() string {
	switch {
	case a.waitType == "Lock":
		return a.lockWait()
	case a.state == "":
		return "its session had ended"
	case a.waitsForClient():
		return "PostgreSQL was waiting for leadsync to send the rest of it"
	case a.inState > 0:
		return fmt.Sprintf("PostgreSQL was not running it (its session was %s for %s)", a.state, a.inState.Round(time.Millisecond))
	default:
		return fmt.Sprintf("PostgreSQL was not running it (its session was %s)", a.state)
	}
}

// lockWait says how long the session waited for a lock, and who holds it.
func (a activity) lockWait() string {
	s := "it waited"
	if a.waited > 0 {
		s += " " + seconds(a.waited).Round(time.Millisecond).String()
	}
	s += " for a lock"
	if len(a.blockers) == 0 {
		return s
	}
	pids := make([]string, len(a.blockers))
	for i, p := range a.blockers {
		pids[i] = fmt.Sprint(p)
	}
	return s + " held by PID " + strings.Join(pids, ", ")
}

// seconds is s seconds (the server's epoch differences) as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// probeLimit bounds the question a stall asks the server (probe.ask): a
// server that does not answer within it is taken to have stopped.
const probeLimit = 10 * time.Second

// activityQuery reads what the session $1 does, and how long it has been
// in its state, on the server's clock. The lock's wait start
// (pg_locks.waitstart, PostgreSQL 14) is read through to_jsonb, so that
// an older server answers without it.
const activityQuery = `SELECT coalesce(a.state, ''), coalesce(a.wait_event_type, ''), pg_blocking_pids(a.pid),
	coalesce(extract(epoch FROM clock_timestamp() - (SELECT min((to_jsonb(l) ->> 'waitstart')::timestamptz)
		FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted))::float8, 0),
	coalesce(extract(epoch FROM now() - a.state_change)::float8, 0)
	FROM pg_stat_activity a WHERE a.pid = $1`

// probe asks the server what one session does (activity), on a
// connection of its own: opened when the watch is armed and kept, so that
// a server full when a limit comes (max_connections, the role's limit)
// is still asked. When a question on it fails, a timeout included (a
// server restarted, a flow dropped unseen), it is closed and the question
// asked once more on a new connection, with a limit of its own.
type probe struct {
	connStr string
	pid     uint32        // the session asked about
	limit   time.Duration // bounds each connection's question (probeLimit)

	mu   sync.Mutex
	conn *pgx.Conn // nil until opened, or once closed
}

// newProbe returns the probe of session pid, its connection opened when
// the server accepts it (else at the first question).
func (b *Backend) newProbe(pid uint32) *probe {
	p := &probe{connStr: b.opts.ConnStr, pid: pid, limit: probeLimit}
	ctx, cancel := context.WithTimeout(context.Background(), probeLimit)
	defer cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.open(ctx) // refused now, it is tried again when asked
	return p
}

// ask asks the server what the session does: on the kept connection
// within p.limit, and when that fails in any way (closed, broken, or
// silent until its deadline, as a flow a NAT dropped) once more on a new
// connection with a limit of its own. Only the new one's failure counts.
func (p *probe) ask() (activity, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		a, err := p.askOn(false)
		if err == nil {
			return a, nil
		}
		p.closeConn() // whatever failed, a new connection is asked
	}
	return p.askOn(true)
}

// askOn asks within p.limit on the kept connection, or on a new one when
// fresh. The caller holds p.mu.
func (p *probe) askOn(fresh bool) (activity, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.limit)
	defer cancel()
	if fresh {
		if err := p.open(ctx); err != nil {
			return activity{}, err
		}
	}
	return p.activity(ctx)
}

// open connects the probe. The caller holds p.mu.
func (p *probe) open(ctx context.Context) error {
	c, err := connect(ctx, p.connStr)
	if err != nil {
		return probeRefused(Redact(err, p.connStr))
	}
	p.conn = c
	return nil
}

// activity reads what the session does on the probe's connection. The
// caller holds p.mu.
func (p *probe) activity(ctx context.Context) (activity, error) {
	var a activity
	var inState float64
	err := p.conn.QueryRow(ctx, activityQuery, int64(p.pid)).Scan(&a.state, &a.waitType, &a.blockers, &a.waited, &inState)
	if errors.Is(err, pgx.ErrNoRows) {
		return activity{}, nil
	}
	a.inState = seconds(inState)
	return a, Redact(err, p.connStr)
}

// close closes the probe's connection, if open.
func (p *probe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeConn()
}

// closeConn closes the probe's connection, if open, within p.limit.
// The caller holds p.mu.
func (p *probe) closeConn() {
	if p.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.limit)
	defer cancel()
	p.conn.Close(ctx)
	p.conn = nil
}

// errProbeRefused marks a question of a stall the server refused to
// connect for (too many connections, the role's limit, starting up): it
// answered, so it has not stopped, and what the session does is unknown.
var errProbeRefused = errors.New("the server refused a connection to ask")

// probeRefused wraps err in errProbeRefused when the server refused the
// connection (SQLSTATE class 53, insufficient resources, or 57P03,
// cannot connect now); other errors are returned as they are.
func probeRefused(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "53") || pe.Code == "57P03") {
		return fmt.Errorf("%w: %w", errProbeRefused, err)
	}
	return err
}
