package pg

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/api"
)

// Pace shares the pace of an API key through the database: the service's
// rate limit belongs to the key, so every process on the database (the
// teammates of a team, in any workspace and any folder) waits for the last
// call any of them started. The start of the key's last call is a row of
// the pace table, keyed by api.PaceKeyID (a hash: the key is never
// stored), read and written in one short transaction that locks the row.
// It implements api.SharedPace, as pacefile.File does for a local state.
//
// Times in the pace table are the database server's clock, so that
// teammates whose clocks disagree still share one pace: each connection
// measures the difference between this machine's clock and the server's
// (clock_timestamp(), halfway through the round trip) and translates.
// Without it a teammate whose clock is a minute behind would wait a minute
// for every call, and one a minute ahead would not wait at all.
//
// Pace has a connection of its own (the backend's may be busy recording a
// call), opened on first use and closed after a while without calls. After
// a database error it stays away for a while (errors are not fatal: the
// pacer then paces this process alone), so that a database that is down
// does not slow every call.
type Pace struct {
	b     *Backend // for its schema, migrations and messages; its connection is unused
	keyID string

	mu       sync.Mutex
	conn     *pgx.Conn
	migrated bool
	failedAt time.Time   // when the database last failed (wall clock)
	idle     *time.Timer // closes the connection when unused
	// offset is the server's clock minus this machine's, measured when
	// the connection was opened.
	offset time.Duration
	// clock is this machine's clock (time.Now; tests skew it).
	clock func() time.Time
}

const (
	// paceTimeout bounds one reservation: the pacer waits for it.
	paceTimeout = 5 * time.Second
	// paceRetryAfter is how long Pace stays away after a database error.
	paceRetryAfter = 30 * time.Second
	// paceIdle closes the connection after this long without a call.
	paceIdle = 10 * time.Second
)

// NewPace returns the pace of key in the database and schema of opts
// (opts.Workspace does not matter: the pace is the key's). Nothing is
// connected yet.
func NewPace(opts Options, key string) (*Pace, error) {
	b, err := New(opts)
	if err != nil {
		return nil, err
	}
	return &Pace{b: b, keyID: api.PaceKeyID(key), clock: time.Now}, nil
}

// Reserve starts a call at now unless the key's last call started less
// than gap before now: then it records nothing and returns how long to
// wait.
func (p *Pace) Reserve(now time.Time, gap time.Duration) (time.Duration, error) {
	var wait time.Duration
	err := p.do("reserving a call in the shared pace", func(ctx context.Context, c *pgx.Conn) error {
		wait = 0
		now := now.Add(p.offset) // the server's clock
		start := ceilMicro(now)
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			// A key without a row: this call is the first; the insert
			// waits for a concurrent insert of the same key and then does
			// nothing.
			var inserted bool
			err := tx.QueryRow(ctx, p.b.sql(`INSERT INTO {s}.pace (key_hash, last_start) VALUES ($1, $2)
ON CONFLICT (key_hash) DO NOTHING RETURNING true`), p.keyID, start).Scan(&inserted)
			if !errors.Is(err, pgx.ErrNoRows) {
				return err // nil: inserted, committed
			}
			var last time.Time
			if err := tx.QueryRow(ctx, p.b.sql(`SELECT last_start FROM {s}.pace WHERE key_hash = $1 FOR UPDATE`), p.keyID).Scan(&last); err != nil {
				return err
			}
			if next := last.Add(gap); now.Before(next) {
				wait = next.Sub(now)
				return nil // the end of the transaction releases the row
			}
			_, err = tx.Exec(ctx, p.b.sql(`UPDATE {s}.pace SET last_start = $2 WHERE key_hash = $1`), p.keyID, start)
			return err
		})
	})
	if err != nil {
		return 0, err
	}
	return wait, nil
}

// Extend moves the key's last call to t when t is later (a request that
// reached the wire after its start).
func (p *Pace) Extend(t time.Time) error {
	return p.do("extending the shared pace", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, p.b.sql(`INSERT INTO {s}.pace AS p (key_hash, last_start) VALUES ($1, $2)
ON CONFLICT (key_hash) DO UPDATE SET last_start = GREATEST(p.last_start, EXCLUDED.last_start)`), p.keyID, ceilMicro(t.Add(p.offset)))
		return err
	})
}

// Last returns the start of the key's last call (zero when none).
func (p *Pace) Last() (time.Time, error) {
	var last time.Time
	err := p.do("reading the shared pace", func(ctx context.Context, c *pgx.Conn) error {
		err := c.QueryRow(ctx, p.b.sql(`SELECT last_start FROM {s}.pace WHERE key_hash = $1`), p.keyID).Scan(&last)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err == nil {
			last = last.Add(-p.offset) // this machine's clock
		}
		return err
	})
	return last, err
}

// Close closes the connection, if open.
func (p *Pace) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	return p.closeLocked()
}

func (p *Pace) closeLocked() error {
	if p.conn == nil {
		return nil
	}
	err := p.conn.Close(context.Background())
	p.conn = nil
	return err
}

// errPaceAway is returned while Pace stays away from a database that
// failed.
var errPaceAway = errors.New("the shared pace is not used for a while after a database error")

// do runs f on the pace's connection (connecting, and creating or
// migrating the schema, when needed).
func (p *Pace) do(doing string, f func(ctx context.Context, c *pgx.Conn) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.failedAt.IsZero() && time.Since(p.failedAt) < paceRetryAfter {
		return errPaceAway
	}
	ctx, cancel := context.WithTimeout(context.Background(), paceTimeout)
	defer cancel()
	err := p.run(ctx, doing, f)
	if err != nil {
		// A broken connection is opened again next time.
		p.closeLocked()
		p.failedAt = time.Now()
		return err
	}
	p.failedAt = time.Time{}
	if p.idle == nil {
		p.idle = time.AfterFunc(paceIdle, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.closeLocked()
		})
	} else {
		p.idle.Reset(paceIdle)
	}
	return nil
}

// run runs f, connecting and migrating first when needed; its errors say
// what failed, without the password.
func (p *Pace) run(ctx context.Context, doing string, f func(ctx context.Context, c *pgx.Conn) error) error {
	if p.conn == nil || p.conn.IsClosed() {
		c, err := connect(ctx, p.b.opts.ConnStr)
		if err != nil {
			return err // already says where, redacted
		}
		p.conn = c
		// The difference of the clocks, halfway through a round trip.
		before := p.clock()
		var server time.Time
		if err := c.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&server); err != nil {
			return p.b.wrap("reading the database server's clock", err)
		}
		after := p.clock()
		p.offset = clockOffset(before, server, after)
	}
	if !p.migrated {
		if err := p.b.migrate(ctx, p.conn, SchemaVersion); err != nil {
			return err // already wrapped
		}
		p.migrated = true
	}
	return p.b.wrap(doing, f(ctx, p.conn))
}

// ceilMicro rounds t up to the microsecond the database keeps, so that a
// stored start is never earlier than the real one.
func ceilMicro(t time.Time) time.Time {
	if tr := t.Truncate(time.Microsecond); !tr.Equal(t) {
		return tr.Add(time.Microsecond)
	}
	return t
}

// clockOffset is the server's clock minus this machine's, from a reading
// of the server's clock between before and after. The reading is off by at
// most half the round trip, so an offset within that (and a few
// milliseconds more) is taken as none: one machine's processes, and
// teammates whose clocks agree, then keep exactly the times they have.
func clockOffset(before, server, after time.Time) time.Duration {
	half := after.Sub(before) / 2
	off := server.Sub(before.Add(half))
	if off.Abs() <= half+clockSlack {
		return 0
	}
	return off
}

// clockSlack is the difference of clocks below which they count as one.
const clockSlack = 10 * time.Millisecond
