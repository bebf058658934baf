package state

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
)

var keyRE = regexp.MustCompile(`^(network|page):[0-9a-f]{64}$`)

func eraseEv(at time.Time, keys []string, ids ...string) Event {
	return Event{At: at, Kind: EventForgetPeople, Address: PeopleAddress,
		People: &ForgetPeopleEvent{Reason: ForgetErasure, PersonIDs: ids, Keys: keys}}
}

func retentionEv(at time.Time, ids ...string) Event {
	return Event{At: at, Kind: EventForgetPeople, Address: PeopleAddress,
		People: &ForgetPeopleEvent{Reason: ForgetRetention, PersonIDs: ids}}
}

// TestForgetPeople: an erased person leaves the state and never comes back
// through a search, a profile read or an enrichment; retention removes
// without suppressing.
func TestForgetPeople(t *testing.T) {
	ann, bob := lead("n1", "ann", "Ann"), lead("n2", "Bob_B", "Bob")
	tests := []struct {
		name   string
		events []Event
		want   map[string]string
		// suppressed is the number of suppression entries.
		suppressed int
		credits    int
	}{
		{
			name: "erased person leaves search and profile",
			events: []Event{
				searchEv(day(0), "search.a", 0, ann, bob),
				profileEv(day(0), "profile.p", "ann", "Ann"),
				eraseEv(day(1), nil, "n1"),
			},
			want: map[string]string{
				"person n2":         "found_by=search.a",
				"search search.a":   "leads=n2 added=0 removed=0 suppressed=1",
				"profile profile.p": "person=",
			},
			suppressed: 1,
		},
		{
			name: "the search that found them runs again",
			events: []Event{
				searchEv(day(0), "search.a", 0, ann, bob),
				eraseEv(day(1), nil, "n1"),
				searchEv(day(2), "search.a", 0, ann, bob),
			},
			want: map[string]string{
				"person n2":       "found_by=search.a",
				"search search.a": "leads=n2 added=0 removed=0 suppressed=1",
			},
			suppressed: 1,
		},
		{
			name: "max_results counts the people kept",
			events: []Event{
				eraseEv(day(0), IdentifierKeys("n1")),
				searchEv(day(1), "search.a", 1, ann, bob),
			},
			want: map[string]string{
				"person n2":       "found_by=search.a",
				"search search.a": "leads=n2 added=0 removed=0 suppressed=1",
			},
			suppressed: 1,
		},
		{
			name: "erased by page name before they were found, any case",
			events: []Event{
				eraseEv(day(0), IdentifierKeys("bob_b")),
				searchEv(day(1), "search.a", 0, ann, bob),
				profileEv(day(1), "profile.p", "Bob_B", "Bob"),
			},
			want: map[string]string{
				"person n1":         "found_by=search.a",
				"search search.a":   "leads=n1 added=0 removed=0 suppressed=1",
				"profile profile.p": "person=",
			},
			suppressed: 1,
		},
		{
			name: "erased by profile URL",
			events: []Event{
				eraseEv(day(0), IdentifierKeys("https://network.example/profile/ann/")),
				searchEv(day(1), "search.a", 0, ann),
			},
			want: map[string]string{
				"search search.a": "leads= added=0 removed=0 suppressed=1",
			},
			suppressed: 1,
		},
		{
			name: "an enrichment of an erased person is not kept, its credits are counted",
			events: []Event{
				searchEv(day(0), "search.a", 0, ann, bob),
				eraseEv(day(1), nil, "n1"),
				enrichEv(day(1), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "ann", Email: "a@x.io", CreditBalance: 9}),
			},
			want: map[string]string{
				"person n2":       "found_by=search.a",
				"search search.a": "leads=n2 added=0 removed=0 suppressed=1",
			},
			suppressed: 1,
			credits:    1,
		},
		{
			name: "an enrichment that names an erased page name is not kept",
			events: []Event{
				searchEv(day(0), "search.a", 0, lead("n1", "", "Ann"), bob),
				eraseEv(day(1), IdentifierKeys("ann")), // nobody known by it yet
				enrichEv(day(2), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "ann", Email: "a@x.io", CreditBalance: 9}),
			},
			want: map[string]string{
				"person n1":       "found_by=search.a",
				"person n2":       "found_by=search.a",
				"search search.a": "leads=n1,n2 added=0 removed=0",
			},
			suppressed: 1,
			credits:    1,
		},
		{
			name: "retention removes without suppressing; a search brings them back",
			events: []Event{
				searchEv(day(0), "search.a", 0, ann, bob),
				profileEv(day(0), "profile.p", "ann", "Ann"),
				retentionEv(day(200), "n1"),
				searchEv(day(201), "search.b", 0, ann),
			},
			want: map[string]string{
				"person n1":       "found_by=search.b",
				"person n2":       "found_by=search.a",
				"search search.a": "leads=n2 added=0 removed=0",
				"search search.b": "leads=n1 added=0 removed=0",
			},
		},
		{
			name: "erasing twice adds one entry",
			events: []Event{
				searchEv(day(0), "search.a", 0, ann),
				eraseEv(day(1), IdentifierKeys("n1"), "n1"),
				eraseEv(day(2), IdentifierKeys("n1")),
			},
			want: map[string]string{
				"search search.a": "leads= added=0 removed=0 suppressed=1",
			},
			suppressed: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			for _, e := range tc.events {
				if err := s.Fold(e); err != nil {
					t.Fatal(err)
				}
			}
			got := forgetSummary(s)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("state (-want +got):\n%s", d)
			}
			if len(s.Suppressed) != tc.suppressed {
				t.Errorf("%d suppression entries, want %d", len(s.Suppressed), tc.suppressed)
			}
			for _, e := range s.Suppressed {
				for _, k := range e.Keys {
					if !keyRE.MatchString(k) {
						t.Errorf("suppression key %q is not a kind and a SHA-256: an identifier in clear?", k)
					}
				}
			}
			if s.Usage.CreditsSpent != tc.credits {
				t.Errorf("credits spent %d, want %d", s.Usage.CreditsSpent, tc.credits)
			}
		})
	}
}

// forgetSummary is what TestForgetPeople compares: per person its FoundBy,
// per search its leads, counts and suppressed results, per profile its
// person; an enrichment kept shows as its e-mail.
func forgetSummary(s *State) map[string]string {
	m := map[string]string{}
	for id, p := range s.People {
		m["person "+id] = "found_by=" + strings.Join(p.FoundBy, ",")
		if p.Enrichment != nil {
			m["person "+id] += " email=" + p.Enrichment.Result.Email
		}
	}
	for addr, sr := range s.Searches {
		v := fmt.Sprintf("leads=%s added=%d removed=%d", strings.Join(sr.LeadIDs, ","), sr.Added, sr.Removed)
		if sr.Suppressed > 0 {
			v += fmt.Sprintf(" suppressed=%d", sr.Suppressed)
		}
		m["search "+addr] = v
	}
	for addr, pr := range s.Profiles {
		m["profile "+addr] = "person=" + pr.PersonID
	}
	return m
}

func TestFindPersonAndExpired(t *testing.T) {
	s := New()
	must(t, s.Fold(searchEv(day(0), "search.a", 0, lead("n1", "Ann_A", "Ann"), lead("", "bob", "Bob"))))
	must(t, s.Fold(searchEv(day(100), "search.b", 0, lead("n1", "Ann_A", "Ann"))))
	for in, want := range map[string]string{
		"n1": "n1", "Ann_A": "n1", "ann_a": "n1", "https://network.example/profile/Ann_A": "n1",
		"bob": "page:bob", "page:bob": "page:bob", "nobody": "", "https://network.example/": "",
		// The addresses state list and state show print.
		"person.n1": "n1", "person.page:bob": "page:bob", "person.nobody": "",
	} {
		got := ""
		if p := s.FindPerson(in); p != nil {
			got = p.ID
		}
		if got != want {
			t.Errorf("FindPerson(%q) = %q, want %q", in, got, want)
		}
	}
	if got := s.Expired(180*24*time.Hour, day(200)); !cmp.Equal(got, []string{"page:bob"}) {
		t.Errorf("Expired = %q, want bob (Ann was seen on day 100)", got)
	}
	if got := s.Expired(0, day(1000)); got != nil {
		t.Errorf("Expired without retention = %q", got)
	}
}
