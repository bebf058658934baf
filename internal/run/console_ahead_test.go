package run

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// pagesStore is a store of seven people p1 ... p7 giving them a page
// after an ID (After), whose failAt-th read fails (0: none). It counts
// its reads and the reads under way.
type pagesStore struct {
	state.PeopleStore
	mu              sync.Mutex
	people          []*state.Person
	reads, underway int
	failAt          int
}

func newPagesStore(failAt int) *pagesStore {
	s := &pagesStore{failAt: failAt}
	for i := 1; i <= 7; i++ {
		s.people = append(s.people, &state.Person{ID: fmt.Sprintf("p%d", i)})
	}
	return s
}

func (s *pagesStore) After(id string, n int) ([]*state.Person, error) {
	s.mu.Lock()
	s.reads++
	s.underway++
	fail := s.reads == s.failAt
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.underway--
		s.mu.Unlock()
	}()
	if fail {
		return nil, errors.New("the database went away")
	}
	var out []*state.Person
	for _, p := range s.people {
		if p.ID > id && len(out) < n {
			out = append(out, p)
		}
	}
	return out, nil
}

func (s *pagesStore) Close() error { return nil }

// count is the reads made and under way.
func (s *pagesStore) count() (reads, underway int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads, s.underway
}

// TestEachPersonAhead: eachAhead gives fn every person, in ID order,
// across the pages the store is read in (two people each, read on a
// goroutine of their own); it stops at fn's first error or the store's,
// returns it, and returns only once no read is under way, having read
// one page ahead of fn at most.
func TestEachPersonAhead(t *testing.T) {
	cases := []struct {
		name     string
		failAt   int // the store's read that fails
		stopAt   string
		want     string // the people fn saw
		err      string
		maxReads int
	}{
		{name: "every page", want: "p1 p2 p3 p4 p5 p6 p7", maxReads: 4},
		{name: "fn fails", stopAt: "p3", want: "p1 p2 p3", err: "stop at p3", maxReads: 3},
		{name: "the third read fails", failAt: 3, want: "p1 p2 p3 p4", err: "the database went away", maxReads: 3},
		{name: "the first read fails", failAt: 1, err: "the database went away", maxReads: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := newPagesStore(c.failAt)
			b := state.NewStoredBase(state.New(), nil, store)
			b.SetPage(2)
			var saw []string
			err := eachAhead(b.PageSize(), b.EachPerson, func(p *state.Person) error {
				saw = append(saw, p.ID)
				if p.ID == c.stopAt {
					return fmt.Errorf("stop at %s", p.ID)
				}
				return nil
			})
			if got := strings.Join(saw, " "); got != c.want {
				t.Errorf("fn saw %q, want %q", got, c.want)
			}
			if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
				t.Errorf("error %v, want %q", err, c.err)
			}
			reads, underway := store.count()
			if underway != 0 || reads > c.maxReads {
				t.Errorf("%d reads, %d under way at the return; want %d at most, none", reads, underway, c.maxReads)
			}
		})
	}
}

// TestLeadValueOf: a where that reads lead.<field> only gets an object of
// the fields it reads (what it reads of lead is the same); one that
// reads lead otherwise gets every field (config.LeadValue).
func TestLeadValueOf(t *testing.T) {
	lead := person.Lead{FullName: "Ada Lovelace", Title: "CTO", Company: "Engines", Location: "London"}
	cases := []struct {
		expr string
		want cty.Value
	}{
		{`lead.title == "CTO" && lead.company != lead.title`, cty.ObjectVal(map[string]cty.Value{
			"title": cty.StringVal("CTO"), "company": cty.StringVal("Engines")})},
		{`lead.location == "London"`, cty.ObjectVal(map[string]cty.Value{"location": cty.StringVal("London")})},
		{`lead["title"] == "CTO"`, config.LeadValue(lead)},
		{`length(lead) > 0 || lead.title == ""`, config.LeadValue(lead)},
	}
	for _, c := range cases {
		expr, diags := hclsyntax.ParseExpression([]byte(c.expr), "where", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := leadValueOf(expr)(lead)
		if !got.RawEquals(c.want) {
			t.Errorf("%s: lead is %#v, want %#v", c.expr, got, c.want)
		}
	}
}
