package plan

import (
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// TestExportDecision plans one export in every situation the working
// copy's record distinguishes, and checks the first reason that applies,
// in order: missing file, state changes, no record, configuration
// changed, state changed since the write, up to date.
func TestExportDecision(t *testing.T) {
	const addr, path = "export.marketing", "/work/leads/out/leads.xlsx"
	tests := []struct {
		name string
		// after runs once the export was written from the state as it was.
		after      func(f *fixture, o *Options)
		reason     Reason
		detail     string // a part of the detail
		noteChange bool   // the plan has a change besides the export
	}{
		{name: "up to date", after: func(*fixture, *Options) {}, reason: ReasonUpToDate, detail: "out/leads.xlsx"},
		{name: "file missing", after: func(f *fixture, _ *Options) { delete(f.exists, path) },
			reason: ReasonFileMissing, detail: "out/leads.xlsx (missing)"},
		{name: "missing beats everything", after: func(f *fixture, _ *Options) {
			delete(f.exists, path)
			delete(f.records, addr)
			f.cfg.Exports[0].Sheets[0].Columns = []string{"email"}
			f.ran("search.cfo", t0.Add(-day), ids(5, 2)...) // not configured: forget
		}, reason: ReasonFileMissing, detail: "(missing)", noteChange: true},
		{name: "the plan changes state", after: func(f *fixture, _ *Options) {
			f.ran("search.cfo", t0.Add(-day), ids(5, 2)...)
		}, reason: ReasonStateChanges, detail: "out/leads.xlsx", noteChange: true},
		{name: "state changes beat the record", after: func(f *fixture, _ *Options) {
			delete(f.records, addr)
			f.ran("search.cfo", t0.Add(-day), ids(5, 2)...)
		}, reason: ReasonStateChanges, noteChange: true},
		{name: "no record", after: func(f *fixture, _ *Options) { delete(f.records, addr) },
			reason: ReasonNoRecord, detail: "no record of the last write of out/leads.xlsx"},
		{name: "no records at all", after: func(_ *fixture, o *Options) { o.ExportRecord = nil },
			reason: ReasonNoRecord},
		{name: "columns edited", after: func(f *fixture, _ *Options) {
			f.cfg.Exports[0].Sheets[0].Columns = []string{"fullName", "email"}
		}, reason: ReasonConfigChanged, detail: "configuration changed since out/leads.xlsx was written"},
		{name: "labels edited", after: func(f *fixture, _ *Options) {
			f.cfg.Exports[0].Sheets[0].Labels = map[string]string{"email": "Work e-mail"}
		}, reason: ReasonConfigChanged},
		{name: "only_new set", after: func(f *fixture, _ *Options) { f.cfg.Exports[0].Sheets[0].OnlyNew = true },
			reason: ReasonConfigChanged},
		{name: "profile link template", after: func(f *fixture, _ *Options) {
			f.cfg.Settings.ProfileURLTemplate = "https://network.example/in/{pageName}"
		}, reason: ReasonConfigChanged},
		{name: "record without a digest", after: func(f *fixture, _ *Options) { f.records[addr].ConfigDigest = "" },
			reason: ReasonConfigChanged},
		{name: "configuration before state", after: func(f *fixture, _ *Options) {
			f.cfg.Exports[0].Sheets[0].Dedupe = false
			f.st.Serial++
		}, reason: ReasonConfigChanged},
		{name: "forget or state rm since", after: func(f *fixture, _ *Options) {
			// Committed by another command: the serial moved, nothing to plan.
			f.st.RemovePerson(ids(1, 1)[0])
			f.st.Serial++
		}, reason: ReasonStateNewer, detail: "state changed since out/leads.xlsx was written"},
		{name: "another state", after: func(f *fixture, _ *Options) { f.st.Lineage = "00000000-0000-4000-8000-000000000002" },
			reason: ReasonStateNewer},
		{name: "another workspace of one lineage", after: func(f *fixture, _ *Options) {
			// uk was pushed from default: same lineage, and it may reach the
			// same serial with other data.
			f.cfg.Workspace = "uk"
		}, reason: ReasonStateNewer},
		{name: "the default workspace named", after: func(f *fixture, _ *Options) { f.cfg.Workspace = "default" },
			reason: ReasonUpToDate},
		{name: "an interrupted apply's calls", after: func(f *fixture, _ *Options) {
			f.st.Journal = &state.JournalMark{ID: "j2", Seq: 3}
		}, reason: ReasonStateNewer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.cto", kw("CTO"))
			f.export("marketing", "out/leads.xlsx", "search.cto")
			f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
			f.wrote(addr)
			o := f.opts()
			tc.after(f, &o)
			p := f.build(t, o)
			c := p.Change(addr)
			if c == nil {
				t.Fatal("the export is not planned")
			}
			if c.Reason != tc.reason || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("reason %s, detail %q; want %s, detail with %q", c.Reason, c.Detail, tc.reason, tc.detail)
			}
			wantAction, writes := Write, 1
			if tc.reason == ReasonUpToDate {
				wantAction, writes = None, 0
			}
			if c.Action != wantAction || p.Totals.Writes != writes || c.Path != "out/leads.xlsx" {
				t.Errorf("action %s, writes %d, path %q; want %s, %d", c.Action, p.Totals.Writes, c.Path, wantAction, writes)
			}
			// A write is a change (plan --detailed-exitcode exits 2).
			if p.HasChanges() != (writes > 0 || tc.noteChange) {
				t.Errorf("HasChanges = %v", p.HasChanges())
			}
		})
	}
}

// TestExportDecisionNeverWrittenState: a spreadsheet written before any
// apply (headers only) from a state never written stays up to date until
// the state is written: each load of an absent state makes up a lineage
// of its own, which the record must not compare.
func TestExportDecisionNeverWrittenState(t *testing.T) {
	f := newFixture()
	f.st.Serial = 0
	f.export("marketing", "out/leads.xlsx")
	f.wrote("export.marketing")
	f.st.Lineage = "00000000-0000-4000-8000-0000000000ff" // the next load's
	o := f.opts()
	o.Usage = &api.Usage{RemainingRequests: 9000}
	p := f.build(t, o)
	if c := p.Change("export.marketing"); c.Action != None || c.Reason != ReasonUpToDate {
		t.Errorf("got %s %s (%s); want up to date", c.Action, c.Reason, c.Detail)
	}
}

// TestExportDecisionTargets: an export outside --target is not planned,
// whatever its record says.
func TestExportDecisionTargets(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.search("search.cfo", kw("CFO"))
	f.export("ctos", "out/ctos.xlsx", "search.cto")
	f.export("cfos", "out/cfos.xlsx", "search.cfo")
	f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
	f.ran("search.cfo", t0.Add(-day), ids(7, 3)...)
	f.wrote("export.ctos")
	f.wrote("export.cfos")
	f.cfg.Exports[1].Sheets[0].Columns = []string{"email"}
	o := f.opts()
	o.Targets = []string{"export.ctos"}
	p := f.build(t, o)
	if c := p.Change("export.cfos"); c != nil {
		t.Errorf("export.cfos is planned under --target export.ctos: %+v", c)
	}
	if p.HasChanges() {
		t.Errorf("want no changes for the target, got %+v", p.Change("export.ctos"))
	}
	o.Targets = nil
	p = f.build(t, o)
	if c := p.Change("export.cfos"); c.Reason != ReasonConfigChanged {
		t.Errorf("export.cfos: %s", c.Reason)
	}
	if c := p.Change("export.ctos"); c.Action != None {
		t.Errorf("export.ctos is written with export.cfos: %s %s", c.Action, c.Reason)
	}
}
