package export

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestSummarySplitCompleteness writes the Summary of an export whose
// search was split and is incomplete: its row says how many sub-searches
// ran, the people found and the verdict, and the leaves still at the cap
// are listed with their filters.
func TestSummarySplitCompleteness(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("out/leads.csv", marketingSheets()...)
	cfg.Dir = dir
	dims := []state.SplitDimension{{Param: "levelFilter", Values: []string{"Senior", "Manager"}}}
	rec := st.Searches[berlin]
	rec.ResultCount, rec.Capped = 512, true
	rec.Split = &state.SplitTree{Dimensions: dims, Nodes: []*state.SplitNode{
		{Path: []string{}, Results: 300, Saturated: true},
		{Path: []string{"Senior"}, Results: 300, Saturated: true},
		{Path: []string{"Manager"}, Results: 212},
	}}
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "out/leads.summary.csv"), false)
	var note string
	leaf := false
	for _, r := range rows {
		if r[0] == berlin && len(r) > 5 && r[5] != "" {
			note = r[5]
		}
		if r[0] == berlin && r[1] == `level_filter=["Senior"]` && r[2] == "300" {
			leaf = true
		}
	}
	want := "split into 3 sub-searches (the search itself included), 512 people found: incomplete: 1 leaf still at the cap; add a dimension to split_by"
	if note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	if !leaf {
		t.Errorf("the leaf still at the cap is not listed:\n%s", joinRows(rows))
	}
}

func joinRows(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, " | ") + "\n")
	}
	return b.String()
}

// TestSummarySplitUnderway: an apply stopped in the middle of a search's
// first split run leaves no record for the search, only the run under way.
// The export is written (its rows come from completed runs only, as the
// plan and state count people), and the Summary says how far the split got
// instead of "not run yet". Once a run has completed, a new one under way
// says the rows are from the last complete run.
func TestSummarySplitUnderway(t *testing.T) {
	dims := []state.SplitDimension{{Param: "levelFilter", Values: []string{"Senior", "Manager"}}}
	underway := &state.SplitTree{Dimensions: dims, Nodes: []*state.SplitNode{
		{Path: []string{}, Results: 300, Saturated: true, LeadIDs: []string{"1.a", "2.b", "3.c"}},
		{Path: []string{"Senior"}, Results: 2, LeadIDs: []string{"2.b", "4.d"}},
	}}
	tests := []struct {
		name   string
		record bool
		want   string
	}{
		{"first run stopped", false, "split under way: 2 sub-searches run, 4 people found so far, not in this export until the split completes; leadsync apply resumes it"},
		{"refresh stopped", true, "a new split run is under way (2 sub-searches run, 4 people found so far); these rows are from the last complete run; leadsync apply resumes it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, st := fixture("out/leads.csv", marketingSheets()...)
			cfg.Dir = dir
			if !tc.record {
				delete(st.Searches, berlin)
			}
			st.Splits = map[string]*state.SplitTree{berlin: underway}
			if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
				t.Fatal(err)
			}
			rows := readCSV(t, filepath.Join(dir, "out/leads.summary.csv"), false)
			var note string
			for _, r := range rows {
				if r[0] == berlin && len(r) > 5 {
					note = r[5]
				}
			}
			if !strings.Contains(note, tc.want) {
				t.Errorf("note %q, want it to contain %q\n%s", note, tc.want, joinRows(rows))
			}
			if strings.Contains(note, "not run yet") {
				t.Errorf("note %q says not run yet", note)
			}
		})
	}
}
