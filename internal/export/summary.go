package export

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// rowStyle is how a Summary row is shown.
type rowStyle int

const (
	stylePlain  rowStyle = iota
	styleTitle           // a section title
	styleHeader          // the column names of a section
	styleWide            // one long text across the sheet, wrapped (a warning)
)

func (s rowStyle) String() string {
	switch s {
	case stylePlain:
		return "plain"
	case styleTitle:
		return "title"
	case styleHeader:
		return "header"
	case styleWide:
		return "wide"
	}
	return fmt.Sprintf("rowStyle(%d)", int(s))
}

// sumRow is one row of the Summary. Cells are string, int or time.Time
// (UTC); nil is an empty cell.
type sumRow struct {
	style rowStyle
	cells []any
	// chart, on a section's title row, is drawn beside the section (XLSX).
	chart *sumChart
}

// notEnriched is the status row for people never enriched.
const notEnriched = "not enriched"

// summary returns the rows of the Summary sheet (or file): when and what was
// written; what the file holds (the sheets with their rows and the people
// new since the last file, the e-mails by validation status, the changes
// seen); each source with its filters and result count; warnings; and at
// its end, in a small section, the account's credits and quota.
func (j *job) summary(charts bool) []sumRow {
	j.tallyRest()
	j.stopReads() // the Summary reads the Base itself (PeopleFacts)
	b := sumRows{charts: charts}
	b.add(styleTitle, "leadsync export")
	b.add(stylePlain, "Export", j.exp.Address)
	b.add(stylePlain, "File", j.exp.Path)
	b.add(stylePlain, "Written at", j.now)
	b.add(stylePlain, "Times", "all dates and times in this file are UTC")
	if n := len(j.st.Suppressed); n > 0 {
		b.add(stylePlain, "Suppressed", n, "people erased with leadsync forget: left out of every sheet, dropped from every result")
	}

	// What the file holds first: the sheets, the e-mails, the changes;
	// then where the people come from; the account's figures last.
	j.sheetRows(&b)

	var statuses []sumRow
	for _, c := range j.statusCounts() {
		statuses = append(statuses, sumRow{style: stylePlain, cells: []any{c.status, c.n}})
	}
	const enrichTitle = "Enrichment of the people in this export"
	if !b.chartTable(enrichTitle, "E-mails by status", excelize.Pie, []any{"Validation status", "People"}, statuses) {
		b.gap()
		b.add(styleTitle, enrichTitle)
		b.add(styleHeader, "Validation status", "People")
		b.rows = append(b.rows, statuses...)
	}

	if drift := j.driftCounts(); len(drift) > 0 {
		b.gap()
		b.add(styleTitle, "Changes seen of the people in this export")
		b.add(styleHeader, "Change", "People", "Note")
		b.rows = append(b.rows, drift...)
	}
	b.chartTable("Job changes per month", "Job changes per month", excelize.Col, []any{"Month", "People whose title or company changed"}, j.jobChangeMonths())

	searches, profiles, imports := j.sources()
	j.searchRows(&b, searches)
	if leaves := j.splitLeafRows(searches); len(leaves) > 0 {
		b.gap()
		b.rows = append(b.rows, leaves...)
	}
	j.profileRows(&b, profiles)
	j.importRows(&b, imports)
	b.chartTable("People per source", "People per source", excelize.Bar, []any{"Source", "People"}, j.sourceCounts())

	if len(j.warnings) > 0 {
		b.gap()
		b.add(styleTitle, "Warnings")
		for _, w := range j.warnings {
			b.add(styleWide, w)
		}
	}

	j.creditRows(&b)
	return b.rows
}

// sheetRows adds the section of the sheets: the rows of each, the people
// new since the file was last written, where the rows come from and
// which worksheets (or files) hold them.
func (j *job) sheetRows(b *sumRows) {
	b.gap()
	b.add(styleTitle, "Sheets")
	newHeader := "New since the last file"
	if j.opts.LastWritten != nil {
		newHeader = "New since " + j.opts.LastWritten.UTC().Format("2006-01-02 15:04")
	}
	b.add(styleHeader, "Sheet", "Rows", newHeader, "From", "Written to")
	for _, s := range j.sheets {
		var fresh any = "no earlier file on record"
		if j.opts.LastWritten != nil {
			fresh = s.rows.newPeople()
		}
		b.add(stylePlain, s.conf.Name, s.table.n, fresh, j.someSources(s.rows.sources), s.where)
	}
}

// sumRows collects the rows of a summary; charts says whether it carries
// charts (XLSX) or not (CSV).
type sumRows struct {
	rows   []sumRow
	charts bool
}

func (b *sumRows) add(style rowStyle, cells ...any) {
	b.rows = append(b.rows, sumRow{style: style, cells: cells})
}

// gap adds an empty row between two sections.
func (b *sumRows) gap() { b.rows = append(b.rows, sumRow{}) }

// sources returns the sources feeding this export by kind, each once, in
// the order sheets use them.
func (j *job) sources() (searches, profiles, imports []string) {
	seen := map[string]bool{}
	for _, s := range j.sheets {
		for _, src := range s.rows.sources {
			if seen[src] {
				continue
			}
			seen[src] = true
			a, _ := j.cfg.Addr(src)
			switch a.Kind {
			case kind.Profile:
				profiles = append(profiles, src)
			case kind.Import:
				imports = append(imports, src)
			case kind.Search:
				searches = append(searches, src)
			}
		}
	}
	return searches, profiles, imports
}

// searchRows adds the section of the searches: filters, results, when
// each ran, and what to know of its results.
func (j *job) searchRows(b *sumRows, searches []string) {
	if len(searches) == 0 {
		return
	}
	b.gap()
	b.add(styleTitle, "Searches")
	b.add(styleHeader, "Search", "Filters", "Results", "Kept", "Last run", "Note")
	for _, addr := range searches {
		filters := ""
		for _, s := range j.cfg.Searches {
			if s.Address == addr {
				filters = formatFilters(s.Request.Params)
			}
		}
		rec := j.st.Searches[addr]
		if rec == nil {
			first := "not run yet"
			if n := splitUnderwayNote(j.st, addr); n != "" {
				first = n
			}
			b.add(stylePlain, j.sourceName(addr), filters, nil, nil, nil, joinNotes(first, j.failureNote(addr)))
			continue
		}
		note := ""
		if rec.ResultCount == 0 {
			note = ZeroResultsNote
		}
		if rec.Suppressed > 0 {
			note = joinNotes(note, textfmt.Thousands(rec.Suppressed)+" suppressed (erased with leadsync forget, dropped)")
		}
		if rec.Split != nil {
			note = joinNotes(note, splitNote(rec))
		} else if rec.ResultCount > api.MaxResults {
			note = joinNotes(note, OverCapNote)
		} else if rec.Capped || rec.ResultCount >= api.MaxResults {
			note = joinNotes(note, fmt.Sprintf("hit the cap of %d results: the network probably cut the list off; narrow the filters (city, level_filter, ...) and split the search to see everyone", api.MaxResults))
		}
		note = joinNotes(note, splitUnderwayNote(j.st, addr))
		b.add(stylePlain, j.sourceName(addr), filters, rec.ResultCount, j.kept(addr), rec.RanAt.UTC(), joinNotes(note, j.failureNote(addr)))
	}
}

// profileRows adds the section of the profile reads.
func (j *job) profileRows(b *sumRows, profiles []string) {
	if len(profiles) == 0 {
		return
	}
	b.gap()
	b.add(styleTitle, "Profiles")
	b.add(styleHeader, "Profile", "Page name", "Read at", "Note")
	for _, addr := range profiles {
		page := ""
		for _, p := range j.cfg.Profiles {
			if p.Address == addr {
				page = p.PageName
			}
		}
		rec := j.st.Profiles[addr]
		if rec == nil {
			b.add(stylePlain, j.sourceName(addr), page, nil, joinNotes("not read yet", j.failureNote(addr)))
			continue
		}
		b.add(stylePlain, j.sourceName(addr), page, rec.ReadAt.UTC(), j.failureNote(addr))
	}
}

// importRows adds the section of the imports.
func (j *job) importRows(b *sumRows, imports []string) {
	if len(imports) == 0 {
		return
	}
	b.gap()
	b.add(styleTitle, "Imports")
	b.add(styleHeader, "Import", "File", "Rows", "People", "With an e-mail", "Imported at", "Note")
	for _, addr := range imports {
		rec := j.st.Imports[addr]
		if rec == nil {
			file := ""
			for _, im := range j.cfg.Imports {
				if im.Address == addr {
					file = im.File
				}
			}
			b.add(stylePlain, addr, file, nil, nil, nil, nil, "not imported yet")
			continue
		}
		note := "enriched at no credit: no call was made"
		if rec.Suppressed > 0 {
			note = joinNotes(note, textfmt.Thousands(rec.Suppressed)+" suppressed (erased with leadsync forget, dropped)")
		}
		b.add(stylePlain, addr, rec.File, rec.Rows, len(rec.PersonIDs), rec.Enriched, rec.ImportedAt.UTC(), note)
	}
}

// creditRows adds the section of credits and quota, the Summary's last:
// what this run and all runs spent, what was not spent and why, the
// balance and the requests left.
func (j *job) creditRows(b *sumRows) {
	b.gap()
	b.add(styleTitle, "Credits and quota")
	u := j.st.Usage
	if j.opts.Stats != nil {
		b.add(stylePlain, "Credits spent this run", j.opts.Stats.CreditsSpent)
		if n := j.opts.Stats.CreditsUnknown; n > 0 {
			b.add(stylePlain, "Credits that may have been charged this run", n, "enrichments whose outcome is unknown")
		}
	} else {
		b.add(stylePlain, "Credits spent this run", 0, "written from state by leadsync export: no calls made")
	}
	b.add(stylePlain, "Credits spent, all runs", u.CreditsSpent)
	if imp, reu, exc := j.notSpent(); imp+reu+exc > 0 {
		b.add(stylePlain, "People not enriched: on an exclude list", exc, fmt.Sprintf("people this export's searches found whom an exclude list names and an enrich block would have enriched: they were not enriched, which saved %s each (none for those an import gave an e-mail)", textfmt.Plural(j.cfg.API.CreditsPerEnrich, "credit")))
		b.add(stylePlain, "People not enriched: e-mail imported", imp, "people in this export whose e-mail came from an imported file: no credit was spent on them")
		b.add(stylePlain, "People not enriched: copied from another workspace", reu, "people in this export already enriched in another workspace: their e-mail was copied, no credit was spent on them")
	}
	if u.CreditsUnknown > 0 {
		b.add(stylePlain, "Credits that may have been charged, all runs", u.CreditsUnknown, "enrichments whose outcome is unknown")
	}
	if u.CreditBalance != nil {
		b.add(stylePlain, "Credit balance", *u.CreditBalance, "as of", timeOrNil(u.CreditBalanceAt))
	} else {
		b.add(stylePlain, "Credit balance", "unknown")
	}
	switch {
	case j.opts.Stats != nil && j.opts.Stats.RemainingRequests != nil:
		b.add(stylePlain, "Remaining requests this month", *j.opts.Stats.RemainingRequests, "as of", j.now)
	case u.RemainingRequests != nil && u.CheckedAt != nil:
		// The service's figure, read before the calls made since (as show
		// says it): at least that many fewer now.
		var note any
		if n := j.quotaCalls; n > 0 {
			note = fmt.Sprintf("%s recorded since, so at least %s fewer now", textfmt.Plural(n, "call"), textfmt.Thousands(n))
		}
		b.add(stylePlain, "Remaining requests this month", *u.RemainingRequests, "as of", u.CheckedAt.UTC(), note)
	case u.RemainingRequests != nil:
		b.add(stylePlain, "Remaining requests this month", *u.RemainingRequests, "as of", nil)
	default:
		b.add(stylePlain, "Remaining requests this month", "unknown", "run leadsync usage to check")
	}
	if u.InvoicingStartDate != "" {
		b.add(stylePlain, "Invoicing start date", u.InvoicingStartDate)
	}
	if months, unknown := j.creditMonths(); b.charts {
		if unknown > 0 {
			b.add(stylePlain, "Credits charged in an unknown month", unknown, "charged before this state counted credits by month: not drawn in the chart of credits per month")
		}
		b.chartTable("", "Credits charged per month", excelize.Col, []any{"Month", "Credits charged"}, months)
	}
}

// failureNote tells of the last failed call of addr, when the state holds
// one: the rows shown come from the run before it (or there are none).
func (j *job) failureNote(addr string) string {
	f := j.st.Failures[addr]
	if f == nil {
		return ""
	}
	return fmt.Sprintf("the last call failed (%s UTC): %s", f.At.UTC().Format("2006-01-02 15:04"), f.Message)
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

// driftCounts counts the distinct people of the export by what their
// history holds (a change of title, company, location or e-mail) and by
// what the last profile read found (gone, private), with the people whose
// e-mail is not current (of a former employer, of someone who left the
// network); no rows when none of them changed.
func (j *job) driftCounts() []sumRow {
	f := &j.facts
	byField := f.byField
	if f.changes == 0 && f.left+f.private == 0 {
		return nil
	}
	rows := []sumRow{
		{style: stylePlain, cells: []any{"Changed title", byField[state.DriftTitle]}},
		{style: stylePlain, cells: []any{"Changed company", byField[state.DriftCompany]}},
		{style: stylePlain, cells: []any{"Changed location", byField[state.DriftLocation], "seen by searches and enrichments only: a profile shows no location"}},
		{style: stylePlain, cells: []any{"New e-mail", byField[state.DriftEmail], "enriched again; the old e-mail is kept in the history"}},
		{style: stylePlain, cells: []any{"Left the network", f.left, "the last profile read found the page name gone"}},
		{style: stylePlain, cells: []any{"Private profile", f.private, "the last profile read found the profile private"}},
		{style: stylePlain, cells: []any{"E-mail of a former employer", f.stale, "the company changed after the enrichment: the e-mail is not shown as current"}},
		{style: stylePlain, cells: []any{"E-mail of someone who left", f.leftEmails, "the profile was found gone after the enrichment: the e-mail is not shown as current"}},
	}
	return append(rows, sumRow{style: stylePlain, cells: []any{"Changes in all", f.changes, "every change recorded in the history of these people"}})
}

// kept is the number of people the search at addr kept.
func (j *job) kept(addr string) int {
	if j.base == nil {
		return len(j.st.Searches[addr].LeadIDs)
	}
	return j.base.Kept(addr)
}

// countQuotaCalls sets j.quotaCalls: QuotaCallsSince of the export's
// state when the quota was last read, its records' calls and its
// people's, which the store counts.
func (j *job) countQuotaCalls() error {
	u := j.st.Usage
	if u.RemainingRequests == nil || u.CheckedAt == nil {
		return nil
	}
	j.quotaCalls = RecordQuotaCallsSince(j.st, *u.CheckedAt)
	f, err := j.base.PeopleFacts(u.CheckedAt)
	j.quotaCalls += f.QuotaCalls
	return err
}

type statusCount struct {
	status string
	n      int
}

// statusCounts counts the distinct people of the export by the validation
// status of their e-mail: valid, catch all, not found (the service's
// empty) first (always shown), then any other status the service sent,
// then the people not enriched.
func (j *job) statusCounts() []statusCount {
	counts := j.facts.status
	out := []statusCount{
		{person.StatusValid, counts[person.StatusValid]},
		{person.StatusCatchAll, counts[person.StatusCatchAll]},
		{NotFound, counts[NotFound]},
	}
	var other []string
	for k := range counts {
		switch k {
		case person.StatusValid, person.StatusCatchAll, NotFound, notEnriched:
		default:
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		out = append(out, statusCount{k, counts[k]})
	}
	return append(out, statusCount{notEnriched, counts[notEnriched]})
}

// ZeroResultsNote is what the Summary (and the apply summary) says of a
// search that returned no results: most often a typo, or a city under a
// name the network does not know. Cities carry their local names; the
// network (and the sandbox) also knows the English names of some (Munich),
// so the note does not call those wrong.
const ZeroResultsNote = zeroResultsNote

// OverCapNote is the note of a search whose answer held more leads than
// the network's cap of 300 (a service that does not hold to the spec):
// state kept at most that many (state.KeepAtMost), and the Summary sheet,
// the apply summary and state show say so.
const OverCapNote = "the answer held more than the network's cap of 300: at most 300 kept"

const zeroResultsNote = "returned no results: check the spelling of the keywords and filters; cities are safest under their local names (München, Köln, Wien)"

// formatFilters writes a search's parameters as "name=value | ...", under
// the configuration's names (country_filter, not the service's
// countryFilter), sorted by name; the values of a list are joined with "; " (values such as
// "Internet and IT, Software" contain commas themselves).
func formatFilters(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return api.AttributeName(keys[i]) < api.AttributeName(keys[j]) })
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var v string
		switch x := params[k].(type) {
		case string:
			v = x
		case []string:
			v = strings.Join(x, "; ")
		case []any:
			s := make([]string, len(x))
			for i, e := range x {
				s[i] = fmt.Sprint(e)
			}
			v = strings.Join(s, "; ")
		default:
			v = fmt.Sprint(x)
		}
		parts = append(parts, api.AttributeName(k)+"="+v)
	}
	return strings.Join(parts, " | ")
}

// notSpent counts, for the Summary, the people of this export whose
// enrichment no credit was spent on (imported, reused from another
// workspace), and the people of its sources the exclude blocks left out
// who hold no paid enrichment (none, or only an imported e-mail) and whom
// an enrich block would have enriched: each person once, an excluded one
// as excluded (not imported), as plan and apply count them (counted as
// the rows were collected: exportFacts).
func (j *job) notSpent() (imported, reused, excluded int) {
	return j.facts.imported, j.facts.reused, len(j.facts.excluded)
}

// enrichCandidate reports whether an enrich block would enrich p but for
// the exclude blocks: it reads a search or profile that found p, and its
// where lets p pass. An excluded person no enrich block reads saved no
// credit, and one enriched (before the list named them, or by their own
// enrichment telling their e-mail or domain) was paid for.
func (j *job) enrichCandidate(p *state.Person) bool {
	for _, e := range j.cfg.Enriches {
		reads := false
		for _, f := range p.FoundBy {
			for _, from := range e.From {
				if from == f || from == address.Block(f) {
					reads = true
				}
			}
		}
		if !reads {
			continue
		}
		if ok, err := j.cfg.Match(e, p.Lead); ok && err == nil {
			return true
		}
	}
	return false
}
