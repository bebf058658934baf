package state

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

var testDims = []SplitDimension{
	{Param: "industryFilter", Values: []string{"A", "B", "C"}},
	{Param: "levelFilter", Values: []string{"x", "y"}},
}

func TestSplitTreeSize(t *testing.T) {
	for _, tt := range []struct {
		dims []SplitDimension
		d    int
		want int
	}{
		{nil, 0, 1},
		{testDims[:1], 0, 4},
		{testDims, 0, 1 + 3 + 3*2},
		{testDims, 1, 1 + 2},
		{testDims, 2, 1},
		{[]SplitDimension{{Values: make([]string, 23)}, {Values: make([]string, 6)}}, 0, 1 + 23 + 23*6},
	} {
		if got := SplitTreeSize(tt.dims, tt.d); got != tt.want {
			t.Errorf("SplitTreeSize(%d dims, %d) = %d, want %d", len(tt.dims), tt.d, got, tt.want)
		}
	}
}

func node(sat bool, path ...string) *SplitNode {
	n := &SplitNode{Path: path, Saturated: sat, Results: 10}
	if n.Path == nil {
		n.Path = []string{}
	}
	if sat {
		n.Results = api.MaxResults
	}
	return n
}

// TestSplitProgress is the table of what a run has left to do and its
// bound: before a first run the whole tree, then exactly the children of
// saturated nodes, and on a refresh the known tree plus the subtrees of the
// nodes that may newly saturate.
func TestSplitProgress(t *testing.T) {
	p := func(s ...string) []string { return s }
	tests := []struct {
		name      string
		cur, prev []*SplitNode
		pending   [][]string
		max       int
	}{
		{name: "first run", pending: [][]string{p()}, max: 10},
		{name: "root not saturated", cur: []*SplitNode{node(false)}, pending: nil, max: 0},
		{name: "root saturated", cur: []*SplitNode{node(true)},
			pending: [][]string{p("A"), p("B"), p("C")}, max: 9},
		{name: "one child done, saturated", cur: []*SplitNode{node(true), node(true, "B")},
			pending: [][]string{p("A"), p("C"), p("B", "x"), p("B", "y")}, max: 3 + 3 + 2},
		{name: "children done", cur: []*SplitNode{node(true), node(false, "A"), node(true, "B"), node(false, "C"), node(true, "B", "x")},
			pending: [][]string{p("B", "y")}, max: 1},
		{name: "complete with a saturated leaf", cur: []*SplitNode{node(true), node(false, "A"), node(true, "B"), node(false, "C"), node(true, "B", "x"), node(false, "B", "y")},
			pending: nil, max: 0},
		{name: "refresh reruns the known tree",
			prev:    []*SplitNode{node(true), node(false, "A"), node(true, "B"), node(false, "C"), node(false, "B", "x"), node(false, "B", "y")},
			pending: [][]string{p(), p("A"), p("B"), p("C"), p("B", "x"), p("B", "y")},
			// 6 known nodes, plus A and C may saturate: 2 children each.
			max: 6 + 2 + 2},
		{name: "refresh, resumed",
			prev:    []*SplitNode{node(true), node(false, "A"), node(true, "B"), node(false, "C"), node(false, "B", "x"), node(false, "B", "y")},
			cur:     []*SplitNode{node(true), node(false, "A"), node(true, "B", "x")},
			pending: [][]string{p("B"), p("C"), p("B", "y")},
			max:     3 + 2},
		{name: "refresh, a known node newly saturated",
			prev:    []*SplitNode{node(true), node(false, "A"), node(false, "B"), node(false, "C")},
			cur:     []*SplitNode{node(true), node(true, "A")},
			pending: [][]string{p("B"), p("C"), p("A", "x"), p("A", "y")},
			max:     2 + 2 + 2 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cur, prev *SplitTree
			if tt.cur != nil {
				cur = &SplitTree{Nodes: tt.cur}
			}
			if tt.prev != nil {
				prev = &SplitTree{Nodes: tt.prev}
			}
			got := splitProgress(cur, prev, testDims)
			if diff := cmp.Diff(tt.pending, got.Pending); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
			if got.Max != tt.max {
				t.Errorf("max = %d, want %d", got.Max, tt.max)
			}
			if got.Max < len(got.Pending) {
				t.Errorf("max %d below the %d pending nodes", got.Max, len(got.Pending))
			}
		})
	}
}

func leads(prefix string, n int) []person.Lead {
	out := make([]person.Lead, n)
	for i := range out {
		out[i] = person.Lead{NetworkID: fmt.Sprintf("%s%d.ab", prefix, i), PageName: fmt.Sprintf("%s_%d", prefix, i), FullName: prefix}
	}
	return out
}

// TestFoldSplit folds the sub-searches of a run one by one: people are
// kept from the first result, the search's record appears only when the
// tree is complete, merged without duplicates and up to max_results, and a
// resumed run after a reload continues the same tree.
func TestFoldSplit(t *testing.T) {
	dims := testDims[:1]
	body := json.RawMessage(`{"keywords":"Engineer"}`)
	hash := SplitHash(api.Gen1, body, dims)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(path []string, ls []person.Lead) Event {
		return Event{At: at, Kind: EventSplit, Address: "search.e", Split: &SplitEvent{
			Hash: hash, Generation: api.Gen1, Request: body, Dimensions: dims, MaxResults: 500,
			Path: path, Leads: ls,
		}}
	}
	s := New()
	root := leads("r", api.MaxResults)
	if err := s.Fold(ev(nil, root)); err != nil {
		t.Fatal(err)
	}
	if s.Searches["search.e"] != nil {
		t.Fatal("a search record before the tree is complete")
	}
	if len(s.People) != api.MaxResults {
		t.Fatalf("%d people kept from the root, want %d", len(s.People), api.MaxResults)
	}
	pr := s.SplitPending("search.e", hash, dims)
	if len(pr.Pending) != 3 || !pr.Resumed || pr.Done != 1 {
		t.Fatalf("progress = %+v", pr)
	}
	// A overlaps the root; B is saturated with new people; C is small.
	a := append(leads("r", 100), leads("a", 50)...)
	for _, e := range []Event{ev([]string{"A"}, a), ev([]string{"B"}, leads("b", api.MaxResults))} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	// The run survives a save and a load (as JSON, which the state file
	// is; the codec's own tests check it reads what encoding/json reads).
	b, err := json.Marshal(s)
	must(t, err)
	s2 := &State{}
	must(t, json.Unmarshal(b, s2))
	must(t, s2.Check())
	if got := s2.SplitPending("search.e", hash, dims); len(got.Pending) != 1 || got.Pending[0][0] != "C" {
		t.Fatalf("after a reload, pending = %v", got.Pending)
	}
	if err := s2.Fold(ev([]string{"C"}, leads("c", 20))); err != nil {
		t.Fatal(err)
	}
	rec := s2.Searches["search.e"]
	if rec == nil || rec.Split == nil {
		t.Fatal("no record after the last sub-search")
	}
	if s2.Splits["search.e"] != nil {
		t.Error("the finished run is still under way")
	}
	distinct := 300 + 50 + 300 + 20
	if rec.ResultCount != distinct {
		t.Errorf("result_count %d, want %d", rec.ResultCount, distinct)
	}
	if len(rec.LeadIDs) != min(500, distinct) {
		t.Errorf("kept %d, want %d", len(rec.LeadIDs), min(500, distinct))
	}
	if rec.LeadIDs[0] != "r0.ab" || rec.LeadIDs[300] != "a0.ab" {
		t.Errorf("merge order: %s, %s", rec.LeadIDs[0], rec.LeadIDs[300])
	}
	// B is saturated at the last dimension: incomplete, one leaf.
	if rec.Split.Complete() || !rec.Capped || len(rec.Split.SplitLeaves()) != 1 {
		t.Errorf("complete=%v capped=%v leaves=%d; want an incomplete run with one leaf", rec.Split.Complete(), rec.Capped, len(rec.Split.SplitLeaves()))
	}
	for _, n := range rec.Split.Nodes {
		if n.LeadIDs != nil {
			t.Errorf("node %v keeps its lead IDs", n.Path)
		}
	}
	for _, id := range rec.LeadIDs {
		if p := s2.People[id]; p == nil || len(p.FoundBy) != 1 {
			t.Fatalf("person %s not found by the search", id)
		}
	}
	// A refresh reruns the known tree: 4 nodes certain.
	if got := s2.SplitPending("search.e", hash, dims); len(got.Pending) != 4 || !got.Prev {
		t.Errorf("refresh pending = %v", got.Pending)
	}
	// Forgetting the search drops a run under way too.
	if err := s2.Fold(ev(nil, root)); err != nil {
		t.Fatal(err)
	}
	if err := s2.Fold(Event{At: at, Kind: EventForget, Address: "search.e"}); err != nil {
		t.Fatal(err)
	}
	if s2.Splits["search.e"] != nil || s2.Searches["search.e"] != nil {
		t.Error("forget left the split search behind")
	}
}
