package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// stateFlags locate the state: the configuration's state_path (read with
// the usual variable flags) or --state.
type stateFlags struct {
	vars varFlags
	path string
}

func (sf *stateFlags) register(cmd *cobra.Command) {
	sf.vars.register(cmd)
	cmd.Flags().StringVar(&sf.path, "state", "", "use the state file at `PATH` instead of the configuration's state_path")
}

// stateFilePath is where the state of cfg lives.
func stateFilePath(cfg *config.Config) string {
	p := cfg.Settings.StatePath
	if p == "" {
		p = config.DefaultStatePath
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.Dir, p)
	}
	return p
}

// stateRelPath shows path relative to the working directory when inside it.
func stateRelPath(f *Factory, path string) string {
	if rel, err := filepath.Rel(f.Dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

func newStateCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Read and edit the state: list, show, rm, recover, push, pull",
		Long: `The state (.leadsync/state.json unless leadsync { state_path } says otherwise,
or the workspace's rows with a backend "pg" block) records every search
run, profile read and enrichment, and the people they found. These commands
read it, remove records from it, recover a damaged journal, and copy it
into a backend (push) or out of it (pull).

Addresses are those of the configuration (search.cto["Berlin"],
profile.founder) and person.<id> for people.`,
		Example: `  leadsync state list --no-people
  leadsync state show 'search.cto["Berlin"]'
  leadsync state rm search.old`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newStateListCmd(f), newStateShowCmd(f), newStateRmCmd(f), newStateMvCmd(f), newStateRecoverCmd(f), newStatePushCmd(f), newStatePullCmd(f))
	return cmd
}

// stateListOptions are the inputs of `leadsync state list`.
type stateListOptions struct {
	state    stateFlags
	noPeople bool
	prefixes []string
}

func newStateListCmd(f *Factory) *cobra.Command {
	opts := &stateListOptions{}
	cmd := &cobra.Command{
		Use:   "list [PREFIX...]",
		Short: "List the addresses in the state",
		Long: `List prints one address per line: searches, then profiles, then people as
person.<id>. With prefixes, only the addresses that start with one of them.`,
		Example: `  leadsync state list
  leadsync state list search.cto
  leadsync state list --no-people`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.prefixes = args
			return runStateList(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.noPeople, "no-people", false, "leave out person.<id> lines")
	opts.state.register(cmd)
	return cmd
}

func runStateList(f *Factory, opts *stateListOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	s, err := src.backend.Load()
	if err != nil {
		return err
	}
	w := newStateWriter(f.IO.Out)
	for _, addr := range s.Addresses(!opts.noPeople) {
		if matchesPrefix(addr, opts.prefixes) {
			w.printf("%s\n", addr)
		}
	}
	return w.flush()
}

func matchesPrefix(addr string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(addr, p) {
			return true
		}
	}
	return false
}

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

// stateRmOptions are the inputs of `leadsync state rm`.
type stateRmOptions struct {
	state     stateFlags
	addresses []string
}

func newStateRmCmd(f *Factory) *cobra.Command {
	opts := &stateRmOptions{}
	cmd := &cobra.Command{
		Use:   "rm ADDRESS...",
		Short: "Remove searches, profiles or people from the state",
		Long: `Rm removes records from the state, as if their blocks had been removed
from the configuration: a search's or profile's people leave the exports
that list it, but the people and their enrichments stay (nothing paid for
is lost). The next plan shows the block as new again.

person.<id> removes a person entirely, with their enrichment; a search that
finds them again brings them back. For an erasure request use leadsync
forget, which also keeps them out from then on.

Rm takes the state lock, and the state before is kept as <state>.backup.`,
		Example: `  leadsync state rm 'search.cto["Berlin"]'
  leadsync state rm profile.founder search.old
  leadsync state rm person.123456.a1b2c3`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeStateAddresses(f, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.addresses = args
			return runStateRm(f, opts)
		},
	}
	cmd.Flags().DurationVar(&f.LockTimeout, "lock-timeout", 0, lockTimeoutHelp)
	opts.state.register(cmd)
	return cmd
}

func runStateRm(f *Factory, opts *stateRmOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	noState := fmt.Errorf("no state at %s yet: nothing to remove", src.describe(f))
	if backend.KnownAbsent(src.backend) {
		return noState // before taking the lock, which would create the directory
	}
	removed, err := run.StateRm(stateDeps(f, src), opts.addresses)
	if errors.Is(err, run.ErrNoState) {
		return noState
	}
	if err != nil {
		return err
	}
	for _, r := range removed {
		switch r.Kind {
		case "search":
			fmt.Fprintf(f.IO.Out, "Removed %s (%s leave the exports that list it; people and enrichments are kept)\n", r.Address, textfmt.Plural(r.Leads, "lead"))
		case "profile":
			fmt.Fprintf(f.IO.Out, "Removed %s (the person and their enrichment are kept)\n", r.Address)
		case "person":
			fmt.Fprintf(f.IO.Out, "Removed %s and their enrichment\n", r.Address)
		}
	}
	if bk, ok := backend.BackupOf(src.backend); ok {
		fmt.Fprintf(f.IO.Out, "The state before is kept in %s.\n", stateRelPath(f, bk.BackupPath()))
	}
	return nil
}

// stateWhen renders a time with its age: "2026-05-01 12:00 UTC (3 days ago)".
func stateWhen(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 MST") + " (" + stateAge(now.Sub(t)) + ")"
}

// stateAge says how long ago something was, in words.
func stateAge(d time.Duration) string {
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return textfmt.Plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return textfmt.Plural(int(d/time.Hour), "hour") + " ago"
	}
	return textfmt.Plural(int(d/(24*time.Hour)), "day") + " ago"
}

func compactJSON(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// stateWriter collects the first write error, so that long listings do not
// check every line.
// Output is buffered: a state lists hundreds of thousands of people.
type stateWriter struct {
	w   *bufio.Writer
	err error
}

func newStateWriter(w io.Writer) *stateWriter { return &stateWriter{w: bufio.NewWriter(w)} }

func (w *stateWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// kv prints an aligned "key value" line without trailing space.
func (w *stateWriter) kv(indent, key, value string) {
	w.printf("%s\n", trimRight(fmt.Sprintf("%s%-16s %s", indent, key, value)))
}

func (w *stateWriter) flush() error {
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return w.err
}
