package views

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// StateKind is what the state holds at addr: "search", "profile",
// "import", "track", "person", "failure" (a call that failed, with no success recorded), or
// "" for nothing.
func StateKind(s *state.State, addr string) string {
	if k := s.Kind(addr); k != kind.None {
		return string(k)
	}
	if s.Failures[addr] != nil {
		return failureKind
	}
	return ""
}

// StateShow is the view of `leadsync state show`: everything the state
// holds at one address (one StateKind gives), personal data included.
type StateShow interface {
	Show(s *state.State, addr string) error
}

// NewStateShow returns the JSON or the human view of state show, writing
// to w; now is the clock the human form says ages by.
func NewStateShow(w io.Writer, asJSON bool, now func() time.Time) StateShow {
	if asJSON {
		return stateShowJSON{w}
	}
	return stateShowHuman{w, now}
}

var (
	_ StateShow = stateShowHuman{}
	_ StateShow = stateShowJSON{}
)

type stateShowHuman struct {
	w   io.Writer
	now func() time.Time
}

func (v stateShowHuman) Show(s *state.State, addr string) error {
	w := newLineWriter(v.w)
	now := v.now()
	if r, ok := shownRecords[s.Kind(addr)]; ok {
		r.human(w, s, addr, now)
	} else if StateKind(s, addr) == failureKind {
		w.printf("%s\n", addr)
		w.printf("  no successful call recorded\n")
	}
	if failure := s.Failures[addr]; failure != nil {
		status := ""
		if failure.Status != 0 {
			status = fmt.Sprintf("HTTP %d: ", failure.Status)
		}
		w.printf("  last failure  %s, %s%s\n", When(failure.At, now), status, failure.Message)
	}
	return w.flush()
}

func writeSearchRecord(w *lineWriter, s *state.State, addr string, now time.Time) {
	sr := s.Searches[addr]
	writeCallHead(w, addr, sr.Generation, "ran_at", When(sr.RanAt, now), sr.Request, sr.RequestHash)
	w.printf("  results       %s\n", searchResultsText(sr))
	if sr.Runs == 1 {
		w.printf("  change        first run\n")
	} else {
		w.printf("  change        +%s -%s since the run before\n", textfmt.Thousands(sr.Added), textfmt.Thousands(sr.Removed))
	}
	w.printf("  leads         %s\n", textfmt.Thousands(len(sr.LeadIDs)))
	for _, id := range sr.LeadIDs {
		w.printf("    %s%s\n", state.PersonAddressPrefix+id, personLine(s.People[id]))
	}
}

func writeProfileRecord(w *lineWriter, s *state.State, addr string, now time.Time) {
	pr := s.Profiles[addr]
	writeCallHead(w, addr, pr.Generation, "read_at", When(pr.ReadAt, now), pr.Request, pr.RequestHash)
	w.printf("  person        %s%s\n", state.PersonAddressPrefix+pr.PersonID, personLine(s.People[pr.PersonID]))
}

// writeCallHead writes the lines a search's and a profile's records begin
// with: the address, the generation, when the call was made (under label),
// the request and its hash.
func writeCallHead(w *lineWriter, addr string, gen api.Generation, label, when string, request []byte, hash string) {
	w.printf("%s\n", addr)
	w.printf("  generation    %d\n", int(gen))
	w.printf("  %-14s%s\n", label, when)
	w.printf("  request       %s\n", compactJSON(request))
	w.printf("  request_hash  %s\n", hash)
}

func writeImportRecord(w *lineWriter, s *state.State, addr string, now time.Time) {
	ir := s.Imports[addr]
	w.printf("%s\n", addr)
	w.printf("  file          %s\n", ir.File)
	w.printf("  imported_at   %s\n", When(ir.ImportedAt, now))
	w.printf("  digest        %s\n", ir.Digest)
	w.printf("  rows          %s\n", textfmt.Thousands(ir.Rows))
	w.printf("  enriched      %s with an e-mail (no credit)\n", textfmt.Thousands(ir.Enriched))
	w.printf("  people        %s\n", textfmt.Thousands(len(ir.PersonIDs)))
	for _, id := range ir.PersonIDs {
		w.printf("    %s%s\n", state.PersonAddressPrefix+id, personLine(s.People[id]))
	}
}

// writeTrackRecord draws what the state holds of a track: the people it
// read, when, what it saw change, and who left or is private.
func writeTrackRecord(w *lineWriter, s *state.State, addr string, now time.Time) {
	rec := s.TrackRecordOf(addr)
	w.printf("%s\n", addr)
	w.printf("  last_read     %s\n", When(rec.LastRead, now))
	w.printf("  changes       %s\n", trackChangesText(rec))
	w.printf("  people        %s read\n", textfmt.Thousands(len(rec.People)))
	for _, tp := range rec.People {
		p := s.People[tp.PersonID]
		w.printf("    %s%s\n", state.PersonAddressPrefix+tp.PersonID, personLine(p))
		w.printf("      read_at   %s\n", When(tp.ReadAt, now))
		if st := personStatusText(p); st != "" {
			w.printf("      status    %s\n", st)
		}
		for _, d := range tp.Changes {
			w.printf("      changed   %s  %-8s  %s\n", d.At.UTC().Format("2006-01-02 15:04 MST"), d.Field, driftText(d))
		}
	}
}

// trackChangesText sums what a track saw: "3 changes (2 titles, 1
// company); 1 left the network, 0 private".
func trackChangesText(rec *state.TrackRecord) string {
	n := 0
	var parts []string
	for _, f := range []struct{ field, one, many string }{
		{state.DriftTitle, "title", "titles"}, {state.DriftCompany, "company", "companies"}, {state.DriftStatus, "status", "statuses"},
	} {
		c := rec.Changes[f.field]
		n += c
		if c > 0 {
			parts = append(parts, textfmt.Thousands(c)+" "+map[bool]string{true: f.one, false: f.many}[c == 1])
		}
	}
	t := textfmt.Plural(n, "change")
	if len(parts) > 0 {
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%s; %s left the network, %s private", t, textfmt.Thousands(rec.Left), textfmt.Thousands(rec.Private))
}

func searchResultsText(sr *state.Search) string {
	if ss := sr.SplitSummary(); ss != nil {
		t := fmt.Sprintf("%s found by %s, %s kept: %s", textfmt.Plural(ss.People, "person"), textfmt.Plural(ss.SubSearches, "sub-search"), textfmt.Thousands(len(sr.LeadIDs)), ss.Verdict())
		if len(ss.Saturated) > 0 {
			t += " (" + strings.Join(ss.Saturated, "; ") + ")"
		}
		return t
	}
	t := fmt.Sprintf("%s returned, %s kept", textfmt.Thousands(sr.ResultCount), textfmt.Thousands(len(sr.LeadIDs)))
	switch {
	case sr.ResultCount > api.MaxResults:
		t += " (" + export.OverCapNote + ")"
	case sr.Capped:
		t += " (the service's cap of 300: there may be more)"
	}
	return t
}

// personLine is a short description of a person: name, title and company.
func personLine(p *state.Person) string {
	if p == nil {
		return "  (missing)"
	}
	parts := []string{}
	if p.Lead.FullName != "" {
		parts = append(parts, p.Lead.FullName)
	}
	switch {
	case p.Lead.Title != "" && p.Lead.Company != "":
		parts = append(parts, p.Lead.Title+" at "+p.Lead.Company)
	case p.Lead.Title != "":
		parts = append(parts, p.Lead.Title)
	case p.Lead.Company != "":
		parts = append(parts, p.Lead.Company)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, ", ")
}

// leadShowOrder are the lead fields state show names first, in the order
// a person reads them; the other lead fields of the table of person
// fields (person.PersonFields) follow, so that a new one shows too.
var leadShowOrder = []string{"fullName", "firstName", "lastName", "title", "previousTitle", "company", "location", "networkId", "pageName"}

// leadShowFields are the rows of person.LeadFields in the order state show
// names them.
var leadShowFields = func() []*person.PersonField {
	rank := map[string]int{}
	for i, k := range leadShowOrder {
		rank[k] = i + 1
	}
	out := append([]*person.PersonField(nil), person.LeadFields...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank[out[i].Key], rank[out[j].Key]
		return ri != 0 && (rj == 0 || ri < rj)
	})
	return out
}()

func writePerson(w *lineWriter, p *state.Person, now time.Time) {
	w.printf("%s%s\n", state.PersonAddressPrefix, p.ID)
	for _, f := range leadShowFields {
		w.kv("  ", f.Key, *f.Lead(&p.Lead))
	}
	w.kv("  ", "first_seen", When(p.FirstSeen, now))
	w.kv("  ", "last_seen", When(p.LastSeen, now))
	w.kv("  ", "found_by", strings.Join(p.FoundBy, ", "))
	if st := personStatusText(p); st != "" {
		w.kv("  ", "status", st)
	}
	if e := p.Enrichment; e != nil {
		r := e.Result
		w.printf("  enrichment\n")
		w.kv("    ", "enriched_at", When(e.EnrichedAt, now))
		w.kv("    ", "by", e.By)
		// What only an enrichment says that a sheet shows (email, ...):
		// its lead fields are the person's above.
		for _, f := range person.EnrichedFields {
			if f.Column != "" && f.Lead == nil && f.Enriched != nil {
				v := *f.Enriched(&r)
				if f.Key == "email" && v != "" {
					// Kept, never shown as current.
					switch p.EmailNotCurrent() {
					case state.EmailFormerEmployer:
						v += " (not current: the company changed since; see history)"
					case state.EmailLeftNetwork:
						v += " (not current: left the network since; see history)"
					}
				}
				w.kv("    ", f.Key, v)
			}
		}
	}
	if pr := p.Profile; pr != nil {
		w.printf("  profile\n")
		if p.ProfileReadAt != nil {
			w.kv("    ", "read_at", When(*p.ProfileReadAt, now))
		}
		w.kv("    ", "fullName", pr.FullName)
		for _, pos := range pr.CurrentPosition {
			w.printf("    %-16s %s at %s\n", "currentPosition", pos.JobTitle, pos.Company)
		}
		w.kv("    ", "networkUrl", pr.NetworkURL)
		w.printf("    %-16s %v\n", "private", pr.Private)
	}
	if len(p.Raw) > 0 {
		w.printf("  raw              %s\n", compactJSON(p.Raw))
	}
	if len(p.Tracked) > 0 {
		w.printf("  tracked\n")
		for _, addr := range slices.Sorted(maps.Keys(p.Tracked)) {
			w.kv("    ", addr, "read "+When(p.Tracked[addr], now))
		}
	}
	if len(p.History) > 0 {
		w.printf("  history\n")
		for _, d := range p.History {
			w.printf("    %s  %-8s  %s  (%s)\n", d.At.UTC().Format("2006-01-02 15:04 MST"), d.Field, driftText(d), d.By)
		}
	}
}

// personStatusText says what the last profile read found, "" for a public
// profile (or none read).
func personStatusText(p *state.Person) string {
	since := ""
	if p.StatusSince != nil {
		since = " since " + p.StatusSince.UTC().Format("2006-01-02")
	}
	switch p.Status {
	case state.StatusLeft:
		return "left the network" + since + " (the service knows the page name no more)"
	case state.StatusPrivate:
		return "private" + since
	}
	return ""
}

// driftText is a drift's before and after: "CTO -> VP Engineering",
// "(none)" for an empty value; statuses in words.
func driftText(d state.Drift) string {
	word := func(v string) string {
		switch {
		case d.Field == state.DriftStatus && v == state.StatusLeft:
			return "left the network"
		case v == "":
			return "(none)"
		}
		return v
	}
	return word(d.Before) + " -> " + word(d.After)
}

// StateShowJSON is the --json form of state show.
type StateShowJSON struct {
	FormatVersion string              `json:"format_version"`
	Address       string              `json:"address"`
	Kind          string              `json:"kind"`
	Search        *state.Search       `json:"search,omitempty"`
	Profile       *state.ProfileRead  `json:"profile,omitempty"`
	Person        *state.Person       `json:"person,omitempty"`
	Import        *state.ImportRecord `json:"import,omitempty"`
	// Track is a track's record: the people it read, when, what it saw
	// change of them, their status.
	Track *state.TrackRecord `json:"track,omitempty"`
	// EmailNotCurrent says, for a person, why the e-mail of their
	// enrichment is not current ("former employer", "left the network"):
	// it is kept, and never shown as current. Absent when it is current.
	EmailNotCurrent string `json:"email_not_current,omitempty"`
	// LastFailure is the last failed call of the address since its last
	// success; for an address that never succeeded, kind is "failure".
	LastFailure *state.Failure `json:"last_failure,omitempty"`
	// People are the people a search found, a profile read, an import
	// named or a track read, in order.
	People []*state.Person `json:"people"`
}

type stateShowJSON struct{ w io.Writer }

func (v stateShowJSON) Show(s *state.State, addr string) error {
	out := StateShowJSON{FormatVersion: "1", Address: addr, Kind: StateKind(s, addr), LastFailure: s.Failures[addr]}
	if r, ok := shownRecords[s.Kind(addr)]; ok {
		r.json(&out, s, addr)
	}
	return writeJSONDoc(v.w, out)
}
