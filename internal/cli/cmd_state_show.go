package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/spf13/cobra"
)

// stateShowOptions are the inputs of `leadsync state show`.
type stateShowOptions struct {
	state   stateFlags
	json    bool
	address string
}

func newStateShowCmd(f *Factory) *cobra.Command {
	opts := &stateShowOptions{}
	cmd := &cobra.Command{
		Use:   "show ADDRESS",
		Short: "Show one search, profile or person in the state",
		Long: `Show prints everything the state holds for one address: a search's request,
when it ran and the people it found; a profile read; or a person
(person.<id>) with their lead fields, enrichment and profile. People's
personal data is printed only here, when asked for by address.`,
		Example: `  leadsync state show 'search.cto["Berlin"]'
  leadsync state show profile.founder
  leadsync state show person.123456.a1b2c3 --json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeStateAddresses(f, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.address = args[0]
			return runStateShow(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the record as JSON")
	opts.state.register(cmd)
	return cmd
}

func runStateShow(f *Factory, opts *stateShowOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	s, err := src.loadExisting(f)
	if err != nil {
		return err
	}
	addr := opts.address
	kind := s.Kind(addr)
	failure := s.Failures[addr]
	if kind == "" && failure != nil {
		kind = "failure" // a call that failed, with no success recorded
	}
	if kind == "" {
		return run.UnknownAddress(s, addr, "")
	}
	if opts.json {
		return writeStateShowJSON(f.IO.Out, s, addr, kind)
	}
	w := newStateWriter(f.IO.Out)
	now := f.Now()
	switch kind {
	case "search":
		sr := s.Searches[addr]
		w.printf("%s\n", addr)
		w.printf("  generation    %d\n", int(sr.Generation))
		w.printf("  ran_at        %s\n", stateWhen(sr.RanAt, now))
		w.printf("  request       %s\n", compactJSON(sr.Request))
		w.printf("  request_hash  %s\n", sr.RequestHash)
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
	case "profile":
		pr := s.Profiles[addr]
		w.printf("%s\n", addr)
		w.printf("  generation    %d\n", int(pr.Generation))
		w.printf("  read_at       %s\n", stateWhen(pr.ReadAt, now))
		w.printf("  request       %s\n", compactJSON(pr.Request))
		w.printf("  request_hash  %s\n", pr.RequestHash)
		w.printf("  person        %s%s\n", state.PersonAddressPrefix+pr.PersonID, personLine(s.People[pr.PersonID]))
	case "person":
		writePerson(w, s.People[strings.TrimPrefix(addr, state.PersonAddressPrefix)], now)
	case "failure":
		w.printf("%s\n", addr)
		w.printf("  no successful call recorded\n")
	}
	if failure != nil {
		status := ""
		if failure.Status != 0 {
			status = fmt.Sprintf("HTTP %d: ", failure.Status)
		}
		w.printf("  last failure  %s, %s%s\n", stateWhen(failure.At, now), status, failure.Message)
	}
	return w.flush()
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
	if sr.Capped {
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

func writePerson(w *stateWriter, p *state.Person, now time.Time) {
	l := p.Lead
	w.printf("%s%s\n", state.PersonAddressPrefix, p.ID)
	for _, kv := range [][2]string{
		{"fullName", l.FullName}, {"firstName", l.FirstName}, {"lastName", l.LastName},
		{"title", l.Title}, {"previousTitle", l.PreviousTitle}, {"company", l.Company},
		{"location", l.Location}, {"networkId", l.NetworkID}, {"pageName", l.PageName},
	} {
		w.kv("  ", kv[0], kv[1])
	}
	w.kv("  ", "first_seen", stateWhen(p.FirstSeen, now))
	w.kv("  ", "last_seen", stateWhen(p.LastSeen, now))
	w.kv("  ", "found_by", strings.Join(p.FoundBy, ", "))
	if e := p.Enrichment; e != nil {
		r := e.Result
		w.printf("  enrichment\n")
		w.kv("    ", "enriched_at", stateWhen(e.EnrichedAt, now))
		w.kv("    ", "by", e.By)
		w.kv("    ", "email", r.Email)
		w.kv("    ", "validationStatus", r.ValidationStatus)
		w.kv("    ", "companyDomain", r.CompanyDomain)
	}
	if pr := p.Profile; pr != nil {
		w.printf("  profile\n")
		if p.ProfileReadAt != nil {
			w.kv("    ", "read_at", stateWhen(*p.ProfileReadAt, now))
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
}

// stateShowJSON is the --json form of `state show`.
type stateShowJSON struct {
	FormatVersion string             `json:"format_version"`
	Address       string             `json:"address"`
	Kind          string             `json:"kind"`
	Search        *state.Search      `json:"search,omitempty"`
	Profile       *state.ProfileRead `json:"profile,omitempty"`
	Person        *state.Person      `json:"person,omitempty"`
	// LastFailure is the last failed call of the address since its last
	// success; for an address that never succeeded, kind is "failure".
	LastFailure *state.Failure `json:"last_failure,omitempty"`
	// People are the people a search found or a profile read, in order.
	People []*state.Person `json:"people"`
}

func writeStateShowJSON(w io.Writer, s *state.State, addr, kind string) error {
	out := stateShowJSON{FormatVersion: "1", Address: addr, Kind: kind, People: []*state.Person{}, LastFailure: s.Failures[addr]}
	switch kind {
	case "search":
		out.Search = s.Searches[addr]
		for _, id := range out.Search.LeadIDs {
			if p := s.People[id]; p != nil {
				out.People = append(out.People, nonNilPerson(p))
			}
		}
	case "profile":
		out.Profile = s.Profiles[addr]
		if p := s.People[out.Profile.PersonID]; p != nil {
			out.People = append(out.People, nonNilPerson(p))
		}
	case "person":
		out.Person = nonNilPerson(s.People[strings.TrimPrefix(addr, state.PersonAddressPrefix)])
	}
	if out.Search != nil && out.Search.LeadIDs == nil {
		c := *out.Search
		c.LeadIDs = []string{}
		out.Search = &c
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// nonNilPerson returns p with its lists never null, for JSON output.
func nonNilPerson(p *state.Person) *state.Person {
	if p.FoundBy != nil {
		return p
	}
	c := *p
	c.FoundBy = []string{}
	return &c
}
