package pg

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/api/pacefile"
)

// sharedPace is what both shared paces offer (api.SharedPace and Last).
type sharedPace interface {
	api.SharedPace
	Last() (time.Time, error)
}

// paceKinds returns a way to open the pace of a key, once per process,
// for the pace file and, when a server is there, the pg backend (one
// database: two processes, or two teammates in different folders).
func paceKinds(t *testing.T) map[string]func(key string) sharedPace {
	dir := t.TempDir()
	out := map[string]func(string) sharedPace{
		"file": func(key string) sharedPace { return pacefile.New(dir, key) },
	}
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	out["pg"] = func(key string) sharedPace {
		p, err := NewPace(Options{ConnStr: cs, Schema: schema}, key)
		mustNoErr(t, err, "new pace")
		t.Cleanup(func() { p.Close() })
		return p
	}
	return out
}

// TestPaceReserve: the pace file and the pg pace agree: a second process
// of the key waits for the rest of the gap, a late send moves the mark,
// another key has a pace of its own.
func TestPaceReserve(t *testing.T) {
	t.Parallel()
	for name, open := range paceKinds(t) {
		t.Run(name, func(t *testing.T) {
			const key = "secret-key-123"
			p := open(key)
			gap := time.Second
			if w, err := p.Reserve(t0, gap); err != nil || w != 0 {
				t.Fatalf("first call: wait %s, %v", w, err)
			}
			other := open(key)
			if w, err := other.Reserve(t0.Add(300*time.Millisecond), gap); err != nil || w != 700*time.Millisecond {
				t.Fatalf("second call 300ms later: wait %s, %v; want 700ms", w, err)
			}
			if w, err := other.Reserve(t0.Add(gap), gap); err != nil || w != 0 {
				t.Fatalf("a call one gap later waits %s (%v)", w, err)
			}
			mustNoErr(t, p.Extend(t0.Add(gap+200*time.Millisecond)), "extend")
			mustNoErr(t, p.Extend(t0), "extend to an earlier time")
			if w, _ := p.Reserve(t0.Add(2*gap), gap); w != 200*time.Millisecond {
				t.Fatalf("after a late send: wait %s, want 200ms", w)
			}
			if last, err := other.Last(); err != nil || !last.Equal(t0.Add(gap+200*time.Millisecond)) {
				t.Fatalf("last %s (%v), want %s", last, err, t0.Add(gap+200*time.Millisecond))
			}
			if w, _ := open("another-key").Reserve(t0.Add(2*gap), gap); w != 0 {
				t.Fatalf("another key waits %s", w)
			}
			// A start between two microseconds is kept rounded up, never
			// earlier than it was.
			ns := t0.Add(10*gap + 1)
			mustNoErr(t, p.Extend(ns), "extend")
			if w, _ := other.Reserve(ns.Add(gap-1), gap); w <= 0 {
				t.Fatal("a start less than a gap after a recorded one was allowed")
			}
		})
	}
}

// TestPaceOneStartPerGap: processes racing, each with its own handle
// (connection) on the pace of one key and times from a shared injected
// clock, never start two calls closer than the gap, and start at the pace
// (each gap of the clock sees a start).
func TestPaceOneStartPerGap(t *testing.T) {
	t.Parallel()
	for name, open := range paceKinds(t) {
		t.Run(name, func(t *testing.T) {
			const gap = 10 * time.Millisecond
			const tick = time.Millisecond // the clock advances by this at each try
			const tries = 300
			var clock atomic.Int64
			var mu sync.Mutex
			var starts []time.Time
			var wg sync.WaitGroup
			for range 4 {
				p := open("k")
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						n := clock.Add(1)
						if n > tries {
							return
						}
						now := t0.Add(time.Duration(n) * tick)
						w, err := p.Reserve(now, gap)
						if err != nil {
							t.Error(err)
							return
						}
						if w == 0 {
							mu.Lock()
							starts = append(starts, now)
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
			for i := 1; i < len(starts); i++ {
				if d := starts[i].Sub(starts[i-1]); d < gap {
					t.Fatalf("starts %d and %d only %s apart, want %s or more", i-1, i, d, gap)
				}
			}
			// 300 ticks of 1ms with a 10ms gap: about 30 starts; racing
			// goroutines may skip an instant but not most of them.
			if len(starts) < tries*int(tick)/int(gap)/2 {
				t.Fatalf("%d starts in %d ticks: the pace is far below the rate", len(starts), tries)
			}
		})
	}
}

// TestPaceMigratesAndKeepsNoKey: a version 2 schema gets the pace table
// from the first process that paces; the table holds a hash of the key,
// never the key.
func TestPaceMigratesAndKeepsNoKey(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old, schema, c := schemaAt(t, cs, 2)
	ctx := context.Background()
	var err error
	old.mu.Unlock()

	const key = "sk_live_do-not-store-me"
	p, err := NewPace(Options{ConnStr: cs, Schema: schema}, key)
	mustNoErr(t, err, "new pace")
	defer p.Close()
	if w, err := p.Reserve(t0, time.Second); err != nil || w != 0 {
		t.Fatalf("reserve on a version 2 schema: wait %s, %v", w, err)
	}
	v, _, err := old.readVersion(ctx, c)
	mustNoErr(t, err, "version")
	if v != SchemaVersion {
		t.Fatalf("schema version %d after the pace, want %d", v, SchemaVersion)
	}
	rows, err := c.Query(ctx, old.sql(`SELECT key_hash || ' ' || last_start::text FROM {s}.pace`))
	mustNoErr(t, err, "read the pace table")
	var all []string
	for rows.Next() {
		var s string
		mustNoErr(t, rows.Scan(&s), "scan")
		all = append(all, s)
	}
	mustNoErr(t, rows.Err(), "rows")
	if len(all) != 1 || strings.Contains(all[0], key) || !strings.HasPrefix(all[0], api.PaceKeyID(key)+" ") {
		t.Fatalf("pace table %q: want one row keyed by the key's hash", all)
	}
	// The old backend (migrated under it) still loads.
	_, err = old.Load()
	mustNoErr(t, err, "load after the pace migrated the schema")
}

// TestPaceDatabaseDown: a database that cannot be reached is an error (the
// pacer then paces the process alone), said without the password, and it
// is not tried again at every call.
func TestPaceDatabaseDown(t *testing.T) {
	t.Parallel()
	p, err := NewPace(Options{ConnStr: "postgres://u:hunter2secret@127.0.0.1:1/db?connect_timeout=2"}, "k")
	mustNoErr(t, err, "new pace")
	defer p.Close()
	_, err = p.Reserve(t0, time.Second)
	if err == nil || strings.Contains(err.Error(), "hunter2secret") {
		t.Fatalf("reserve with the database down: %v", err)
	}
	if _, err := p.Reserve(t0.Add(time.Second), time.Second); err != errPaceAway {
		t.Fatalf("second reserve with the database down: %v, want the pace to stay away", err)
	}
}

// TestPaceAcrossSkewedClocks: two teammates whose clocks are ten minutes
// apart share one pace: the one ahead waits for the rest of the gap after
// the other's call, and the one behind does not wait ten minutes.
func TestPaceAcrossSkewedClocks(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	const gap = time.Minute
	open := func(key string, skew time.Duration) *Pace {
		p, err := NewPace(Options{ConnStr: cs, Schema: schema}, key)
		mustNoErr(t, err, "new pace")
		p.clock = func() time.Time { return time.Now().Add(skew) }
		t.Cleanup(func() { p.Close() })
		return p
	}
	for _, skew := range []time.Duration{10 * time.Minute, -10 * time.Minute} {
		key := "key skewed " + skew.String()
		a, b := open(key, 0), open(key, skew)
		w, err := a.Reserve(a.clock(), gap)
		mustNoErr(t, err, "reserve")
		if w != 0 {
			t.Fatalf("skew %s: the first call waits %s", skew, w)
		}
		last, err := b.Last()
		mustNoErr(t, err, "last")
		if d := b.clock().Sub(last); d < -time.Second || d > 30*time.Second {
			t.Errorf("skew %s: the other's call started %s ago in its clock, want about now", skew, d)
		}
		w, err = b.Reserve(b.clock(), gap)
		mustNoErr(t, err, "reserve")
		// A minute's gap, less the time between the two calls (seconds at
		// most, even on a busy machine); never the ten minutes of skew.
		if w < 30*time.Second || w > gap {
			t.Errorf("skew %s: the second teammate waits %s, want just under %s", skew, w, gap)
		}
	}
}

func TestClockOffset(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		rtt, off, want time.Duration
	}{
		{time.Millisecond, 0, 0},
		{time.Millisecond, 3 * time.Millisecond, 0},        // within the slack
		{100 * time.Millisecond, 40 * time.Millisecond, 0}, // within half the round trip
		{time.Millisecond, time.Minute, time.Minute},
		{time.Millisecond, -time.Minute, -time.Minute},
	} {
		got := clockOffset(at, at.Add(tc.rtt/2+tc.off), at.Add(tc.rtt))
		if got != tc.want {
			t.Errorf("round trip %s, offset %s: got %s, want %s", tc.rtt, tc.off, got, tc.want)
		}
	}
}
