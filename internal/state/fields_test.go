package state

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

// filledLead is a lead with every field of the table set to its key and
// tag ("title of x"), its keys nid and page.
func filledLead(tag, nid, page string) person.Lead {
	var l person.Lead
	for _, f := range person.LeadFields {
		*f.Lead(&l) = f.Key + " of " + tag
	}
	l.NetworkID, l.PageName = nid, page
	return l
}

// The ID of a lead with no networkId and no page name is the hash it was
// before the table of fields: people kept under such IDs in states
// already written are found again.
func TestPersonIDOfAnonymousLeadUnchanged(t *testing.T) {
	l := filledLead("anon", "", "")
	old := strings.Join([]string{l.FirstName, l.LastName, l.FullName, l.Title, l.Location, l.PreviousTitle, l.Company}, "\x00")
	h := sha256.Sum256([]byte(old))
	if got, want := PersonID(l), anonPrefix+hex.EncodeToString(h[:8]); got != want {
		t.Fatalf("PersonID = %s, want %s (the hash of states already written)", got, want)
	}
}

// Every field whose row has Identity changes the ID of an anonymous lead;
// no other field does.
func TestPersonIDHashesTheIdentityFields(t *testing.T) {
	base := filledLead("anon", "", "")
	id := PersonID(base)
	for _, f := range person.LeadFields {
		if f.Merge == person.MergeKey {
			continue // a key makes the lead no longer anonymous
		}
		l := base
		*f.Lead(&l) += " changed"
		if changed := PersonID(l) != id; changed != f.Identity {
			t.Errorf("%s: a change of it changes the ID: %v; its row says Identity %v", f.Key, changed, f.Identity)
		}
	}
}

// A newer answer sets every lead field it has (but the keys), and an empty
// field erases none; joining two records of one person (a page name
// re-keyed by its networkId) fills each field the one kept lacks.
func TestFoldMergesEveryLeadField(t *testing.T) {
	for _, f := range person.LeadFields {
		if f.Merge == person.MergeKey {
			continue
		}
		t.Run(f.Key, func(t *testing.T) {
			s := New()
			must(t, s.Fold(searchEv(day(0), "search.a", 0, filledLead("old", "n1", "ann"))))
			var newer person.Lead
			newer.NetworkID, newer.PageName = "n1", "ann"
			*f.Lead(&newer) = "new"
			must(t, s.Fold(searchEv(day(1), "search.b", 0, newer)))
			if got := *f.Lead(&s.People["n1"].Lead); got != "new" {
				t.Fatalf("after a newer answer: %q, want %q", got, "new")
			}
			*f.Lead(&newer) = ""
			must(t, s.Fold(searchEv(day(2), "search.c", 0, newer)))
			if got := *f.Lead(&s.People["n1"].Lead); got != "new" {
				t.Fatalf("an empty value erased it: %q", got)
			}

			// Known by page name with every field, then the networkId
			// arrives with an enrichment of a person known without it.
			s = New()
			must(t, s.Fold(searchEv(day(0), "search.a", 0, filledLead("paged", "", "bob"))))
			must(t, s.Fold(searchEv(day(0), "search.b", 0, person.Lead{NetworkID: "n2"})))
			must(t, s.Fold(enrichEv(day(1), "enrich.e", PagePrefix+"bob", person.EnrichedProfile{NetworkID: "n2", PageName: "bob"})))
			p := s.People["n2"]
			if p == nil || s.People[PagePrefix+"bob"] != nil {
				t.Fatalf("not re-keyed: %v", s.People)
			}
			paged := filledLead("paged", "", "bob")
			if got, want := *f.Lead(&p.Lead), *f.Lead(&paged); got != want {
				t.Fatalf("after joining the records: %q, want %q", got, want)
			}
		})
	}
}
