package backendtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// claimsOf opens a holder of account's claims on b, skipping the test for
// a backend that keeps none; it is closed at the end of the test (a
// second Close does nothing).
func claimsOf(t *testing.T, b backend.Backend, account string) backend.Claims {
	t.Helper()
	c, ok, err := backend.ClaimsOf(b, account)
	must(t, err, "claims of %s", backend.WorkspaceOf(b))
	if !ok {
		t.Skip("the backend's workspaces share no claims")
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// claim claims keys on c and fails t unless the outcome is want.
func claim(t *testing.T, c backend.Claims, want backend.Claim, what string, keys ...string) {
	t.Helper()
	got, err := c.Claim(keys)
	must(t, err, "%s: claim %v", what, keys)
	if got != want {
		t.Fatalf("%s: claim %v = %+v, want %+v", what, keys, got, want)
	}
}

// claimWorkspaces opens three workspaces (default, dach, uk) with a handle
// on each, as three applies running at the same moment.
func claimWorkspaces(t *testing.T, k Kind) (def, dach, uk backend.Backend) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	must(t, set.CreateWorkspace("dach"), "create dach")
	must(t, set.CreateWorkspace("uk"), "create uk")
	def, dach, uk = open("", Alice), open("dach", Alice), open("uk", Bob)
	t.Cleanup(func() { backend.Close(def); backend.Close(dach); backend.Close(uk) })
	return def, dach, uk
}

var (
	held = backend.Claim{Held: true}
	// anna is a person by both her keys; a claim by either is hers.
	anna = []string{"n:n1", "p:anna"}
)

// Claims: a person claimed by one workspace's apply is refused to
// another's while it holds them, by any of their keys; released with an
// enrichment, the next claim of a holder that opened before says where it
// is; released without, it says nothing; a holder killed while it held
// someone blocks nobody, and the next claim says that it ended there.
// Accounts do not share claims.
func testClaims(t *testing.T, k Kind) {
	def, dachB, ukB := claimWorkspaces(t, k)
	dach, uk := claimsOf(t, dachB, "acct1"), claimsOf(t, ukB, "acct1")

	claim(t, dach, held, "dach claims Anna", anna...)
	claim(t, uk, backend.Claim{HeldBy: "dach"}, "uk, by her page name, while dach holds her", "p:anna")
	claim(t, uk, backend.Claim{HeldBy: "dach"}, "uk, by both keys", anna...)
	other := claimsOf(t, ukB, "acct2")
	claim(t, other, held, "another account", anna...)
	must(t, other.Release(anna, false), "release of the other account")

	// Released with her enrichment recorded in dach: uk, open since before,
	// is told where to copy it from; a holder opened after is not.
	must(t, dach.Release(anna, true), "dach releases Anna, enriched")
	later := claimsOf(t, def, "acct1")
	claim(t, uk, backend.Claim{Held: true, Since: "dach", Enriched: true}, "uk after dach enriched her", "n:n1")
	must(t, uk.Release([]string{"n:n1"}, false), "uk releases Anna, copied nowhere")
	claim(t, later, held, "a holder opened after dach's enrichment", anna...)
	must(t, later.Release(anna, false), "release")
	claim(t, uk, backend.Claim{Held: true, Since: "dach", Enriched: true}, "uk again: what dach did is put back", anna...)
	must(t, uk.Release(anna, true), "uk releases Anna")

	// Released without an enrichment (the call failed): nothing to tell.
	ben := []string{"n:n2", "p:ben"}
	claim(t, dach, held, "dach claims Ben", ben...)
	must(t, dach.Release(ben, false), "dach releases Ben, not enriched")
	claim(t, uk, held, "uk claims Ben after dach's call failed", ben...)
	must(t, uk.Release(ben, true), "uk releases Ben")

	// A holder that closes while it holds someone lets them go, as ended.
	cleo := []string{"n:n3"}
	claim(t, later, held, "the default workspace claims Cleo", cleo...)
	must(t, later.Close(), "close while holding Cleo")
	claim(t, uk, backend.Claim{Held: true, Since: "default"}, "uk after the default workspace's apply ended holding Cleo", cleo...)
	must(t, uk.Release(cleo, false), "release Cleo")

	// A killed holder: its claim blocks nobody, and uk is told it ended
	// there (its call may have been charged).
	dan := []string{"n:n4", "p:dan"}
	claim(t, dach, held, "dach claims Dan", dan...)
	claim(t, uk, backend.Claim{HeldBy: "dach"}, "uk while dach lives", dan...)
	k.KillClaims(t, dach)
	claim(t, uk, backend.Claim{Held: true, Since: "dach"}, "uk after dach was killed", dan...)
	must(t, uk.Release(dan, true), "release Dan")
	must(t, uk.Close(), "close uk")
}

// ClaimsAtOnce: two applies claiming the same people at the same moment
// (one of them knows some only by page name, which every person enriched
// has): each person is held by one.
func testClaimsAtOnce(t *testing.T, k Kind) {
	_, dachB, ukB := claimWorkspaces(t, k)
	holders := []backend.Claims{claimsOf(t, dachB, "acct1"), claimsOf(t, ukB, "acct1")}
	const people = 40
	got := make([][]bool, len(holders))
	var wg sync.WaitGroup
	for h, c := range holders {
		got[h] = make([]bool, people)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range people {
				keys := []string{fmt.Sprintf("n:n%d", i), fmt.Sprintf("p:p%d", i)}
				if i%3 == 0 && h == 1 {
					keys = keys[1:] // its workspace does not know the network ID
				}
				r, err := c.Claim(keys)
				if err != nil {
					t.Error(err)
					return
				}
				got[h][i] = r.Held
			}
		}()
	}
	wg.Wait()
	for i := range people {
		if got[0][i] == got[1][i] {
			t.Errorf("person %d: held by dach %v, by uk %v; want exactly one", i, got[0][i], got[1][i])
		}
	}
}

// EnrichmentOfARunningApply: an enrichment an apply running in another
// workspace has recorded (not yet committed) is found, as are the
// committed ones: the copy a claim points to is there to read.
func testEnrichmentOfARunningApply(t *testing.T, k Kind) {
	cw, dach := ukBesideDach(t, k)
	l, rec, _ := startApply(t, dach, []state.Event{
		{At: At(1), Kind: state.EventSearch, Address: "search.x", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"x"}`),
			Leads: []person.Lead{lead("n1", "anna", "Anna"), lead("", "ben", "Ben")}}},
		{At: At(2), Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n1", PageName: "anna", Email: "anna@acme.example"}}},
		{At: At(3), Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: state.PagePrefix + "ben", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n2", PageName: "ben", Email: "ben@acme.example"}}},
	})
	defer l.Unlock()
	defer rec.Close()
	found, err := cw.EnrichmentsElsewhere([]string{"n:n1", "p:ben", "n:n2"})
	must(t, err, "lookup while dach's apply runs")
	for _, w := range []struct {
		key, email string
		at         int
	}{{"n:n1", "anna@acme.example", 2}, {"p:ben", "ben@acme.example", 3}, {"n:n2", "ben@acme.example", 3}} {
		r, ok := found[w.key]
		if !ok || r.Workspace != "dach" || r.Enrichment.Result.Email != w.email || !r.Enrichment.EnrichedAt.Equal(At(w.at)) || r.Enrichment.By != "enrich.e" {
			t.Errorf("%s while dach's apply runs: %+v (found %v), want %s enriched at minute %d in dach", w.key, r, ok, w.email, w.at)
		}
	}
}
