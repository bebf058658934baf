package run

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// flakyLedger fails its first holds and sendings, as a ledger in a
// database that restarts does, and counts what it did.
type flakyLedger struct {
	backend.Ledger
	fails                  int // failures left, holds and sendings alike
	holds, sends, releases int
}

var errDown = errors.New("the database system is shutting down")

func (l *flakyLedger) fail() bool {
	if l.fails > 0 {
		l.fails--
		return true
	}
	return false
}

func (l *flakyLedger) Hold(run, month string, add, limit backend.Spending) (backend.Spending, bool, error) {
	if l.fail() {
		return backend.Spending{}, false, errDown
	}
	l.holds++
	return add, true, nil
}

func (l *flakyLedger) Sending(run string, s backend.Spending) error {
	if l.fail() {
		return errDown
	}
	l.sends++
	return nil
}

func (l *flakyLedger) Release(month string, sub backend.Spending) error {
	l.releases++
	return errDown
}

// flakyClaims fails its first claims and releases, then holds every
// person claimed and releases every claim.
type flakyClaims struct {
	backend.Claims
	fails, claims, releases int
}

func (c *flakyClaims) Release(keys []string, enriched bool) error {
	if c.fails > 0 {
		c.fails--
		return errDown
	}
	c.releases++
	return nil
}

func (c *flakyClaims) Claim(keys []string) (backend.Claim, error) {
	if c.fails > 0 {
		c.fails--
		return backend.Claim{}, errDown
	}
	c.claims++
	return backend.Claim{Held: true}, nil
}

// retryingLayer is the rescue layer's retry with delays that pass at
// once, and the notes it makes.
func retryingLayer(t *testing.T) (retryFunc, *[]string) {
	var notes []string
	now := make(chan time.Time)
	close(now)
	layer := Rescuing(local.Open(filepath.Join(t.TempDir(), "state.db")), RescueOptions{
		Delays: []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond},
		After:  func(time.Duration) <-chan time.Time { return now },
		Notify: func(n string) { notes = append(notes, n) },
	})
	retry := writeRetry(context.Background(), Deps{Backend: layer})
	if retry == nil {
		t.Fatal("no retry found in the rescue layer")
	}
	return retry, &notes
}

// TestClaimsAreTriedAgain: a claim or a release across the workspaces that fails (the
// claims' database restarting) is tried again after the rescue layer's
// delays, instead of stopping the run before the enrichment is sent.
func TestClaimsAreTriedAgain(t *testing.T) {
	retry, notes := retryingLayer(t)
	fc := &flakyClaims{fails: 2}
	c, err := engineClaims(fc, retry).Claim([]string{"n:1"})
	if err != nil || !c.Held || fc.claims != 1 || len(*notes) != 2 {
		t.Errorf("claim after two failures: %+v, err %v, %d claims, notes %q", c, err, fc.claims, *notes)
	}
	fc.fails = 4
	if _, err := engineClaims(fc, retry).Claim([]string{"n:2"}); !errors.Is(err, errDown) {
		t.Errorf("a claim failing past the delays: err %v, want the failure", err)
	}
	// A release too: PostgreSQL restarting as an enrichment's outcome is
	// recorded stopped the run (TestClaimsSurvivePGRestart, on a loaded
	// machine).
	fc.fails, *notes = 2, nil
	if err := engineClaims(fc, retry).Release([]string{"n:1"}, true); err != nil || fc.releases != 1 || len(*notes) != 2 {
		t.Errorf("release after two failures: err %v, %d releases, notes %q", err, fc.releases, *notes)
	}
	fc.fails = 4
	if err := engineClaims(fc, retry).Release([]string{"n:1"}, true); !errors.Is(err, errDown) {
		t.Errorf("a release failing past the delays: err %v, want the failure", err)
	}
}

// TestLedgerWritesAreTriedAgain: a hold and a call's sending that fail
// are tried again after the rescue layer's delays, as a result's
// recording is, so that a database restarting during a run does not stop
// it; a write that keeps failing past the delays is the error. A
// take-back is tried once: made twice, it would count less than was
// spent.
func TestLedgerWritesAreTriedAgain(t *testing.T) {
	retry, notes := retryingLayer(t)
	fl := &flakyLedger{fails: 2}
	a := ledgerAdapter{l: fl, run: "r1", retry: retry}
	if _, ok, err := a.Reserve("2026-11-01", plan.Spending{Credits: 1}, plan.Spending{}); err != nil || !ok {
		t.Fatalf("reserve after two failures: ok %v, err %v", ok, err)
	}
	if fl.holds != 1 || len(*notes) != 2 {
		t.Errorf("holds %d, notes %q; want 1 hold after 2 noted failures", fl.holds, *notes)
	}
	fl.fails = 3
	if err := a.Sending(plan.Spending{Credits: 1}); err != nil || fl.sends != 1 {
		t.Errorf("sending after three failures: err %v, %d sent", err, fl.sends)
	}
	fl.fails = 4
	if err := a.Sending(plan.Spending{Credits: 1}); !errors.Is(err, errDown) || fl.sends != 1 {
		t.Errorf("sending failing past the delays: err %v, %d sent; want the failure", err, fl.sends)
	}
	if err := a.Release("2026-11-01", plan.Spending{Credits: 1}, true); err == nil || fl.releases != 1 {
		t.Errorf("release: err %v, tried %d times; want one try and its error", err, fl.releases)
	}
}
