package backendtest

import (
	"io"
	"sync"
	"testing"

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
