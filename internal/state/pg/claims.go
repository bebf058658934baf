package pg

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// The claims of the schema's workspaces (backend.Claims): the table
// claims, one row per key a holder claimed, and claim_holders, the applies
// that hold claims. A holder has a connection of its own whose session
// holds the advisory lock (claimHolderClass, lock_key) for as long as the
// holder lives: a killed apply's session ends, its lock with it, and its
// claims count as ended from then on (pg_locks says so to every session).
// A holder whose connection broke while its apply lives (PostgreSQL
// restarted) connects again at its next claim or release (reconnect).
// A claim is one short transaction that first takes the transaction's
// advisory lock of each key (claimKeyClass, a hash of the key), so that
// two holders claiming one person at the same moment are taken one after
// the other.

// Classes of the two-key advisory locks of the claims (the workspace
// locks use the one-key form, which never meets these).
const (
	claimHolderClass = 0x4c534831 // a holder's session, while it lives
	claimKeyClass    = 0x4c534b31 // a key, while a claim of it is decided
)

// Claim row states.
const (
	claimHeld  = "held"
	claimDone  = "done"  // released with the enrichment recorded
	claimEnded = "ended" // its holder ended (died or closed) while holding it
)

// claims is one holder of the schema's claims.
type claims struct {
	b       *Backend
	mu      sync.Mutex
	conn    *pgx.Conn
	id      string
	account string
	lockKey int32
	opened  int64
	// prev is what each key this holder claimed held before, put back
	// when the claim is released without an enrichment.
	prev   map[string]*claimRow
	closed bool
}

// claimRow is a row of the claims table.
type claimRow struct {
	holder, workspace, state string
	seq                      int64
}

var _ backend.Claimer = (*Backend)(nil)

// Claims opens a holder of account's claims for this workspace, on a
// connection of its own: the backend.Claimer ability. Close it when the
// apply ends.
func (b *Backend) Claims(account string) (backend.Claims, error) {
	ctx, cancel := opCtx()
	defer cancel()
	conn, err := b.ownConn(ctx)
	if err != nil {
		return nil, err
	}
	c := &claims{b: b, conn: conn, id: newID(), account: account, prev: map[string]*claimRow{}}
	if err := c.open(ctx); err != nil {
		conn.Close(context.Background())
		return nil, b.wrap("opening the enrichments' claims", err)
	}
	return c, nil
}

// open takes the holder's session lock (a free random key), registers
// the holder and drops what no live holder needs.
func (c *claims) open(ctx context.Context) error {
	if err := c.lock(ctx); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, c.conn, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, c.b.sql(`INSERT INTO {s}.claim_holders (holder, workspace, lock_key, opened)
			VALUES ($1, $2, $3, nextval('{s}.claim_seq')) RETURNING opened`), c.id, c.b.workspace, c.lockKey).Scan(&c.opened); err != nil {
			return err
		}
		return c.prune(ctx, tx)
	})
}

// lock takes a free random key of the holders' session locks on the
// holder's connection.
func (c *claims) lock(ctx context.Context) error {
	for range 100 {
		var buf [4]byte
		rand.Read(buf[:])
		k := int32(binary.BigEndian.Uint32(buf[:]) >> 1) // positive: an oid in pg_locks
		var got bool
		if err := c.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, int32(claimHolderClass), k).Scan(&got); err != nil {
			return err
		}
		if got {
			c.lockKey = k
			return nil
		}
	}
	return errors.New("no free advisory lock for the holder")
}

// reconnect gives the holder a new connection after its own broke
// (PostgreSQL restarted, its session was ended), as the backend's
// connection is made again: the holder's session lock ended with the old
// session, so the new one takes one and the holder's row names it. The
// holder lives again, with the claims it held that no other holder took
// meanwhile (while it had no session they counted as ended: see
// docs/reliability.md). Nothing is pruned: the other holders may be
// reconnecting too.
func (c *claims) reconnect(ctx context.Context) error {
	conn, err := connect(ctx, c.b.opts.ConnStr)
	if err != nil {
		return err
	}
	c.conn.Close(ctx)
	c.conn = conn
	err = c.lock(ctx)
	if err == nil {
		_, err = c.conn.Exec(ctx, c.b.sql(`INSERT INTO {s}.claim_holders (holder, workspace, lock_key, opened) VALUES ($1, $2, $3, $4)
			ON CONFLICT (holder) DO UPDATE SET lock_key = EXCLUDED.lock_key`), c.id, c.b.workspace, c.lockKey, c.opened)
	}
	if err != nil {
		conn.Close(ctx) // the next claim or release connects again
		return c.b.wrap("opening the enrichments' claims again", err)
	}
	return nil
}

// alive is the SQL condition that the holder named by the expression
// holder lives: its session holds its advisory lock.
func (c *claims) alive(holder string) string {
	return fmt.Sprintf(`EXISTS (SELECT 1 FROM {s}.claim_holders h, pg_locks l
		WHERE h.holder = %s AND l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
		AND l.classid = %d::oid AND l.objid = h.lock_key::oid
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`, holder, claimHolderClass)
}

// prune ends the claims of holders that died, forgets those holders, and
// drops the claims released or ended before the oldest live holder
// opened (it reads their enrichments from the states).
func (c *claims) prune(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, c.b.sql(`UPDATE {s}.claims c SET state = 'ended', seq = nextval('{s}.claim_seq')
		WHERE c.state = 'held' AND NOT `+c.alive("c.holder"))); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, c.b.sql(`DELETE FROM {s}.claim_holders g WHERE NOT `+c.alive("g.holder"))); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, c.b.sql(`DELETE FROM {s}.claims WHERE state <> 'held'
		AND seq < coalesce((SELECT min(opened) FROM {s}.claim_holders), 9223372036854775807)`))
	return err
}

// do runs f in one transaction on the holder's connection. When that
// connection broke (before or during f), the holder connects again
// (reconnect) and f runs once more on the new one: a transaction cut off
// with its connection was not committed.
func (c *claims) do(doing string, f func(ctx context.Context, tx pgx.Tx) error) error {
	if c.closed {
		return errors.New("the claims are closed")
	}
	ctx, cancel := opCtx()
	defer cancel()
	run := func() error { return pgx.BeginFunc(ctx, c.conn, func(tx pgx.Tx) error { return f(ctx, tx) }) }
	if !c.conn.IsClosed() {
		if err := run(); err == nil || !c.conn.IsClosed() {
			return c.b.wrap(doing, err)
		}
	}
	if err := c.reconnect(ctx); err != nil {
		return err
	}
	return c.b.wrap(doing, run())
}

// errHeld rolls back the claim of a person another live holder holds.
var errHeld = errors.New("held by another holder")

// Claim claims keys for this holder unless a live holder of another
// workspace's apply holds one of them.
func (c *claims) Claim(keys []string) (backend.Claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hks := backend.ClaimKeys(c.account, keys)
	var out backend.Claim
	err := c.do("claiming a person's enrichment", func(ctx context.Context, tx pgx.Tx) error {
		out = backend.Claim{}
		for _, k := range hks { // sorted: two claims never wait on each other in a circle
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(claimKeyClass), c.b.schema+"/"+k); err != nil {
				return err
			}
		}
		rows, err := c.rows(ctx, tx, hks)
		if err != nil {
			return err
		}
		prev := map[string]*claimRow{}
		for _, k := range hks {
			r, ok := rows[k]
			switch {
			case !ok:
				prev[k] = nil
				continue
			case r.holder == c.id:
				continue
			case r.state == claimHeld && r.alive:
				out.HeldBy = r.workspace
				return errHeld
			case r.state == claimHeld:
				// A dead holder's: it ends now, and what its call did
				// may have been recorded after anything was read.
				if err := tx.QueryRow(ctx, c.b.sql(`SELECT nextval('{s}.claim_seq')`)).Scan(&r.seq); err != nil {
					return err
				}
				r.state = claimEnded
			}
			if r.seq > c.opened && r.workspace != c.b.workspace && !out.Enriched {
				out.Since, out.Enriched = r.workspace, r.state == claimDone
			}
			prev[k] = &r.claimRow
		}
		for _, k := range hks {
			if _, err := tx.Exec(ctx, c.b.sql(`INSERT INTO {s}.claims (key, holder, workspace, state, seq)
				VALUES ($1, $2, $3, 'held', nextval('{s}.claim_seq'))
				ON CONFLICT (key) DO UPDATE SET holder = EXCLUDED.holder, workspace = EXCLUDED.workspace, state = 'held', seq = EXCLUDED.seq`),
				k, c.id, c.b.workspace); err != nil {
				return err
			}
		}
		for k, r := range prev {
			c.prev[k] = r
		}
		out.Held = true
		return nil
	})
	if errors.Is(err, errHeld) {
		return out, nil
	}
	return out, err
}

// liveRow is a claim row and whether its holder lives.
type liveRow struct {
	claimRow
	alive bool
}

// rows reads the claims of keys, with whether the holder of each held
// one (another holder's) lives.
func (c *claims) rows(ctx context.Context, tx pgx.Tx, hks []string) (map[string]liveRow, error) {
	rows, err := tx.Query(ctx, c.b.sql(`SELECT c.key, c.holder, c.workspace, c.state, c.seq,
		CASE WHEN c.state = 'held' AND c.holder <> $2 THEN `+c.alive("c.holder")+` ELSE true END
		FROM {s}.claims c WHERE c.key = ANY($1)`), hks, c.id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]liveRow{}
	for rows.Next() {
		var k string
		var r liveRow
		if err := rows.Scan(&k, &r.holder, &r.workspace, &r.state, &r.seq, &r.alive); err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, rows.Err()
}

// Release ends this holder's claim of keys: done when enriched, else what
// they held before is put back.
func (c *claims) Release(keys []string, enriched bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	hks := backend.ClaimKeys(c.account, keys)
	err := c.do("releasing a person's enrichment", func(ctx context.Context, tx pgx.Tx) error {
		for _, k := range hks {
			prev := c.prev[k]
			var err error
			switch {
			case enriched:
				_, err = tx.Exec(ctx, c.b.sql(`UPDATE {s}.claims SET state = 'done', seq = nextval('{s}.claim_seq')
					WHERE key = $1 AND holder = $2 AND state = 'held'`), k, c.id)
			case prev != nil:
				_, err = tx.Exec(ctx, c.b.sql(`UPDATE {s}.claims SET holder = $3, workspace = $4, state = $5, seq = $6
					WHERE key = $1 AND holder = $2 AND state = 'held'`), k, c.id, prev.holder, prev.workspace, prev.state, prev.seq)
			default:
				_, err = tx.Exec(ctx, c.b.sql(`DELETE FROM {s}.claims WHERE key = $1 AND holder = $2 AND state = 'held'`), k, c.id)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for _, k := range hks {
			delete(c.prev, k)
		}
	}
	return err
}

// Close ends this holder: its claims still held end with it, what no live
// holder needs any more is dropped, and its session (with its lock) ends.
func (c *claims) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	err := c.do("closing the enrichments' claims", func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, c.b.sql(`UPDATE {s}.claims SET state = 'ended', seq = nextval('{s}.claim_seq')
			WHERE holder = $1 AND state = 'held'`), c.id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, c.b.sql(`DELETE FROM {s}.claim_holders WHERE holder = $1`), c.id); err != nil {
			return err
		}
		return c.prune(ctx, tx)
	})
	c.closed = true
	c.conn.Close(context.Background())
	return err
}
