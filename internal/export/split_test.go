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
	if _, err := WriteAll(cfg, st, Options{Now: fixedNow}); err != nil {
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
