package backendtest

import (
	"io"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// ledgerOf returns the ledger of account b keeps, skipping the test for a
// backend that keeps none; it is closed at the end of the test.
func ledgerOf(t *testing.T, b backend.Backend, account string) backend.Ledger {
	l, ok, err := backend.LedgerOf(b, account)
	must(t, err, "ledger")
	if !ok {
		t.Skip("the backend keeps no budget ledger")
	}
	if c, ok := l.(io.Closer); ok {
		t.Cleanup(func() { c.Close() })
	}
	return l
}

// Ledger: an account's spending per month is shared by every workspace
// and handle of the store, reservations never pass a limit, not even when
// two runs reserve at the same time, and what was not spent is released.
func testLedger(t *testing.T, k Kind) {
	open := k.New(t)
	a := open("", Alice)
	defer backend.Close(a)
	la := ledgerOf(t, a, "acct1")
	const month = "2026-11-17"
	s, err := la.Spent(month)
	must(t, err, "spent")
	if s != (backend.Spending{}) {
		t.Fatalf("a new ledger holds %+v", s)
	}
	limit := backend.Spending{Credits: 10, Requests: 0}
	held, ok, err := la.Reserve(month, backend.Spending{Credits: 8, Requests: 9}, limit)
	must(t, err, "reserve")
	if !ok || held != (backend.Spending{Credits: 8, Requests: 9}) {
		t.Fatalf("reserve 8 of 10: %+v %v", held, ok)
	}
	held, ok, err = la.Reserve(month, backend.Spending{Credits: 3, Requests: 1}, limit)
	must(t, err, "reserve past the limit")
	if ok || held != (backend.Spending{Credits: 8, Requests: 9}) {
		t.Fatalf("reserve 3 more of 10: %+v %v, want refused with 8 held", held, ok)
	}
	must(t, la.Release(month, backend.Spending{Credits: 1}), "release")

	// Another handle, another workspace when the backend has them: the same
	// account's ledger. Another account and another month start at zero.
	b := open("", Bob)
	if set, ok := backend.WorkspacesOf(b); ok {
		must(t, set.CreateWorkspace("uk"), "create uk")
		backend.Close(b)
		b = open("uk", Bob)
	}
	defer backend.Close(b)
	lb := ledgerOf(t, b, "acct1")
	if s, err := lb.Spent(month); err != nil || s != (backend.Spending{Credits: 7, Requests: 9}) {
		t.Fatalf("the other handle sees %+v %v, want 7 credits, 9 requests", s, err)
	}
	if s, err := ledgerOf(t, b, "acct2").Spent(month); err != nil || s != (backend.Spending{}) {
		t.Fatalf("another account holds %+v %v", s, err)
	}
	if s, err := lb.Spent("2026-12-17"); err != nil || s != (backend.Spending{}) {
		t.Fatalf("another month holds %+v %v", s, err)
	}

	// Two runs reserving one credit at a time, at the same time, under a
	// limit of 25: exactly 25 reservations succeed.
	const month2 = "2027-01-17"
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for _, l := range []backend.Ledger{la, lb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				_, ok, err := l.Reserve(month2, backend.Spending{Credits: 1, Requests: 1}, backend.Spending{Credits: 25})
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if s, err := la.Spent(month2); err != nil || granted != 25 || s.Credits != 25 || s.Requests != 25 {
		t.Fatalf("%d reservations granted, the ledger holds %+v (%v); want 25", granted, s, err)
	}
}

// LedgerHoldsOfADeadRun: a run's holds count in the month until its calls
// are sent; what a dead run held for calls it never sent is taken back by
// Settle, and only from its own workspace, while what it sent stays.
func testLedgerHolds(t *testing.T, k Kind) {
	open := k.New(t)
	a := open("", Alice)
	defer backend.Close(a)
	la := ledgerOf(t, a, "acct1")
	const month = "2026-11-17"
	enrich := backend.Spending{Credits: 1, Requests: 1}
	holdDeadRun(t, la, month)
	// A spending that is not held (the billing call): Settle keeps it.
	if _, _, err := la.Reserve(month, backend.Spending{Requests: 1}, backend.Spending{}); err != nil {
		t.Fatal(err)
	}

	// Another workspace's live run holds too: settling this workspace
	// leaves it alone.
	b := open("", Bob)
	other := false
	if set, ok := backend.WorkspacesOf(b); ok {
		must(t, set.CreateWorkspace("uk"), "create uk")
		backend.Close(b)
		b = open("uk", Bob)
		other = true
	}
	defer backend.Close(b)
	lb := ledgerOf(t, b, "acct1")
	if other {
		if _, ok, err := lb.Hold("run-uk", month, backend.Spending{Credits: 2, Requests: 2}, backend.Spending{}); err != nil || !ok {
			t.Fatalf("hold uk: %v %v", ok, err)
		}
	}

	// The next command under the workspace's lock, with a run of its own.
	if _, ok, err := la.Hold("run-next", month, enrich, backend.Spending{}); err != nil || !ok {
		t.Fatalf("hold next: %v %v", ok, err)
	}
	released, err := la.Settle("run-next")
	must(t, err, "settle")
	if released != (backend.Spending{Credits: 14, Requests: 14}) {
		t.Fatalf("settle released %+v, want the 14 enrichments never sent", released)
	}
	want := backend.Spending{Credits: 4, Requests: 6} // 3 charged + 1 held by run-next; 3 sent + billing + run-next's
	if other {
		want = want.Plus(backend.Spending{Credits: 2, Requests: 2})
	}
	if s, err := lb.Spent(month); err != nil || s != want {
		t.Fatalf("after settling, the month holds %+v %v, want %+v", s, err, want)
	}
	if released, err := la.Settle("run-next"); err != nil || released != (backend.Spending{}) {
		t.Fatalf("settling again released %+v %v", released, err)
	}
	// The run ends: it settles itself.
	must(t, la.Sending("run-next", enrich), "sending")
	if released, err := la.Settle(""); err != nil || released != (backend.Spending{}) {
		t.Fatalf("the run's own settle released %+v %v, want nothing (its call was sent)", released, err)
	}
	if other {
		if s, err := lb.Open(month); err != nil || s != (backend.Spending{Credits: 2, Requests: 2}) {
			t.Fatalf("the other workspace's run holds %+v %v after this one settled", s, err)
		}
		if s, err := la.Open(month); err != nil || s != (backend.Spending{}) {
			t.Fatalf("this workspace still holds %+v %v", s, err)
		}
	}
}

// holdDeadRun leaves in l the run of a dead apply ("run-dead"): 20
// enrichments reserved, 4 sent, 1 of them certainly failed (its credit
// released), 2 never sent given back at once; and an Unhold of a run
// never held, which is nothing.
func holdDeadRun(t *testing.T, l backend.Ledger, month string) {
	t.Helper()
	enrich := backend.Spending{Credits: 1, Requests: 1}
	for range 20 {
		if _, ok, err := l.Hold("run-dead", month, enrich, backend.Spending{Credits: 50}); err != nil || !ok {
			t.Fatalf("hold: %v %v", ok, err)
		}
	}
	for range 4 {
		must(t, l.Sending("run-dead", enrich), "sending")
	}
	must(t, l.Release(month, backend.Spending{Credits: 1}), "release a failed call's credit")
	for range 2 {
		must(t, l.Unhold("run-dead", enrich), "unhold")
	}
	must(t, l.Unhold("run-never", enrich), "unhold of an unknown run")
	if s, err := l.Spent(month); err != nil || s != (backend.Spending{Credits: 17, Requests: 18}) {
		t.Fatalf("the month holds %+v %v, want 17 credits and 18 requests (holds included)", s, err)
	}
	if s, err := l.Open(month); err != nil || s != (backend.Spending{Credits: 14, Requests: 14}) {
		t.Fatalf("open holds %+v %v, want 14 and 14", s, err)
	}
}

// LedgerSince: the ledger knows when it first recorded a call of an
// account (a plan says it counts only from then): never for a new one,
// about the moment of the first record, the same for every handle, and
// never for an account without a record.
func testLedgerSince(t *testing.T, k Kind) {
	open := k.New(t)
	a := open("", Alice)
	defer backend.Close(a)
	la := ledgerOf(t, a, "acct1")
	since, err := la.Since()
	must(t, err, "since")
	if !since.IsZero() {
		t.Fatalf("a new ledger counts since %s, want never", since)
	}
	before := time.Now().Add(-time.Minute) // a database's clock may be a little off
	_, _, err = la.Reserve("2026-11-17", backend.Spending{Requests: 1}, backend.Spending{})
	must(t, err, "reserve")
	first, err := la.Since()
	must(t, err, "since")
	if first.Before(before) || first.After(time.Now().Add(time.Minute)) {
		t.Fatalf("after its first record the ledger counts since %s, want about now", first)
	}
	_, _, err = la.Hold("run1", "2026-12-17", backend.Spending{Credits: 1}, backend.Spending{})
	must(t, err, "hold")
	b := open("", Bob)
	defer backend.Close(b)
	if since, err := ledgerOf(t, b, "acct1").Since(); err != nil || !since.Equal(first) {
		t.Fatalf("another handle counts since %s (%v), want the first record, %s", since, err, first)
	}
	if since, err := ledgerOf(t, b, "acct2").Since(); err != nil || !since.IsZero() {
		t.Fatalf("an account with no record counts since %s (%v), want never", since, err)
	}
}
