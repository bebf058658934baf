package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
)

// A split search runs as a tree. The root is the search itself; a node
// that returns the network's cap (api.MaxResults) is saturated, and its
// children set the next dimension to each of its values. The tree a run
// must complete (its target) is:
//
//   - the root;
//   - every node of the previous run's tree, when that run split the same
//     request by the same dimensions: a refresh reruns the known tree, so
//     the plan can count those calls as certain;
//   - the children of every saturated node this run completed, down to
//     the last dimension.
//
// The run is complete when every node of the target has completed; its
// people are then merged into the search's record. Plan and engine both
// follow SplitPending, so apply never runs a node the plan did not count.

// SplitHash identifies what a split run splits: the generation, the
// search's request and the dimensions with their values.
func SplitHash(gen api.Generation, request []byte, dims []SplitDimension) string {
	h := sha256.New()
	fmt.Fprintf(h, "leadsync-split/1 %s\n", RequestHash(gen, request))
	for _, d := range dims {
		fmt.Fprintf(h, "%q:", d.Param)
		for _, v := range d.Values {
			fmt.Fprintf(h, " %q", v)
		}
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pathKey is a map key of a node path.
func pathKey(path []string) string { return strings.Join(path, "\x00") }

// SplitTreeSize is the number of nodes of a full tree below and including
// a node at depth d: 1 + n_d + n_d*n_(d+1) + ... (the bound of a node that
// has not run yet). Before a first run, SplitTreeSize(dims, 0) bounds the
// whole search.
func SplitTreeSize(dims []SplitDimension, d int) int {
	size := 1
	for i := len(dims) - 1; i >= d; i-- {
		size = 1 + len(dims[i].Values)*size
	}
	return size
}

// SplitProgress is where a split run stands, for plan and engine.
type SplitProgress struct {
	// Pending are the nodes of the target not yet completed, in tree
	// order (by depth, then by the dimensions' value order).
	Pending [][]string
	// Max bounds the calls the run may still make: the pending nodes plus,
	// for each that may saturate and has no known children, all of its
	// subtree.
	Max int
	// Resumed is true when a run under way is continued.
	Resumed bool
	// Prev is true when the previous run's tree is rerun.
	Prev bool
	// Done is the number of nodes the run under way has completed.
	Done int
}

// SplitPending tells what a split run of addr with the given hash and
// dimensions has left to do, given what s holds: a run under way with the
// same hash is continued, else a new one starts.
func (s *State) SplitPending(addr, hash string, dims []SplitDimension) SplitProgress {
	var cur *SplitTree
	if t := s.Splits[addr]; t != nil && t.Hash == hash {
		cur = t
	}
	var prev *SplitTree
	if rec := s.Searches[addr]; rec != nil && rec.Split != nil && rec.Split.Hash == hash {
		prev = rec.Split
	}
	return splitProgress(cur, prev, dims)
}

func splitProgress(cur, prev *SplitTree, dims []SplitDimension) SplitProgress {
	done := map[string]*SplitNode{}
	var p SplitProgress
	if cur != nil {
		p.Resumed = true
		for _, n := range cur.Nodes {
			done[pathKey(n.Path)] = n
		}
		p.Done = len(done)
	}
	// children maps a node to whether its children are in the target.
	known := map[string]bool{}
	if prev != nil {
		p.Prev = true
		for _, n := range prev.Nodes {
			if n.Saturated && len(n.Path) < len(dims) {
				known[pathKey(n.Path)] = true
			}
		}
	}
	var walk func(path []string)
	walk = func(path []string) {
		d := len(path)
		n := done[pathKey(path)]
		if n == nil {
			p.Pending = append(p.Pending, slices.Clone(path))
			p.Max++
		}
		if d >= len(dims) {
			return
		}
		switch {
		case known[pathKey(path)] || (n != nil && n.Saturated):
			for _, v := range dims[d].Values {
				walk(append(slices.Clone(path), v))
			}
		case n == nil:
			// May saturate: all of its subtree may run.
			p.Max += SplitTreeSize(dims, d) - 1
		}
	}
	walk(nil)
	sortPaths(p.Pending, dims)
	return p
}

// sortPaths orders paths by depth, then by the dimensions' value order.
func sortPaths(paths [][]string, dims []SplitDimension) {
	index := func(d int, v string) int {
		if d < len(dims) {
			if i := slices.Index(dims[d].Values, v); i >= 0 {
				return i
			}
		}
		return 1 << 30
	}
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := paths[i], paths[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		for d := range a {
			if a[d] != b[d] {
				ia, ib := index(d, a[d]), index(d, b[d])
				if ia != ib {
					return ia < ib
				}
				return a[d] < b[d]
			}
		}
		return false
	})
}

// SplitFilters describes the filters a node adds to its search, like
// industry_filter=["Internet and IT"] level_filter=["Senior"], under the
// configuration's names; "" for the root.
func SplitFilters(dims []SplitDimension, path []string) string {
	parts := make([]string, 0, len(path))
	for d, v := range path {
		name := "?"
		if d < len(dims) {
			name = dims[d].Attribute()
		}
		parts = append(parts, fmt.Sprintf("%s=[%q]", name, v))
	}
	return strings.Join(parts, " ")
}

// SplitLeaves are the nodes of a completed tree that are still saturated
// after the last dimension: the places where the search is incomplete.
func (t *SplitTree) SplitLeaves() []*SplitNode {
	if t == nil {
		return nil
	}
	var out []*SplitNode
	for _, n := range t.Nodes {
		if n.Saturated && len(n.Path) >= len(t.Dimensions) {
			out = append(out, n)
		}
	}
	return out
}

// Complete reports whether no leaf of t is still at the cap.
func (t *SplitTree) Complete() bool { return len(t.SplitLeaves()) == 0 }

// split records one completed sub-search; the one that completes the
// target makes the run the search's record.
func (a *applier) split(addr string, ev *SplitEvent) {
	s := a.s
	s.touchMeta()
	if s.Splits == nil {
		s.Splits = map[string]*SplitTree{}
	}
	t := s.Splits[addr]
	if t == nil || t.Hash != ev.Hash {
		t = &SplitTree{
			Hash: ev.Hash, Generation: ev.Generation, Request: ev.Request, RequestHash: ev.RequestHash,
			Dimensions: ev.Dimensions, MaxResults: ev.MaxResults,
		}
		if t.RequestHash == "" {
			t.RequestHash = RequestHash(ev.Generation, ev.Request)
		}
		s.Splits[addr] = t
	}
	t.MaxResults = ev.MaxResults
	raw := rawFor(&SearchEvent{Leads: ev.Leads, Raw: ev.Raw})
	ids := make([]string, 0, len(ev.Leads))
	set := s.suppressedSet()
	suppressed := 0
	for i, l := range ev.Leads {
		if suppressedLead(set, l) {
			suppressed++ // an erased person: dropped, as in a plain search
			continue
		}
		if len(ids) == api.MaxResults {
			break // an answer past the network's cap: the first are kept
		}
		if len(ev.Raw) > 0 {
			l = withoutNames(l) // as in a search: a raw result has no names
		}
		id := a.upsert(l)
		ids = append(ids, id)
		if r := raw(i, l); r != nil {
			s.People[id].Raw = r
		}
	}
	out, _ := a.distinct(ids)
	node := &SplitNode{Path: slices.Clone(ev.Path), Results: len(ev.Leads), Saturated: len(ev.Leads) >= api.MaxResults, RanAt: a.at, LeadIDs: out, Suppressed: suppressed}
	if node.Path == nil {
		node.Path = []string{}
	}
	key := pathKey(node.Path)
	t.Nodes = slices.DeleteFunc(t.Nodes, func(n *SplitNode) bool { return pathKey(n.Path) == key })
	t.Nodes = append(t.Nodes, node)

	var prev *SplitTree
	if rec := s.Searches[addr]; rec != nil && rec.Split != nil && rec.Split.Hash == t.Hash {
		prev = rec.Split
	}
	if len(splitProgress(t, prev, t.Dimensions).Pending) > 0 {
		return
	}
	a.finishSplit(addr, t)
}

// finishSplit merges the people of a completed run, deduplicated, in tree
// order, up to max_results, and makes the run the search's record.
func (a *applier) finishSplit(addr string, t *SplitTree) {
	s := a.s
	delete(s.Splits, addr)
	nodes := slices.Clone(t.Nodes)
	paths := make([][]string, len(nodes))
	byKey := map[string]*SplitNode{}
	for i, n := range nodes {
		paths[i] = n.Path
		byKey[pathKey(n.Path)] = n
	}
	sortPaths(paths, t.Dimensions)
	seen := map[string]struct{}{}
	var all []string
	suppressed := 0
	for _, p := range paths {
		suppressed += byKey[pathKey(p)].Suppressed
		for _, id := range byKey[pathKey(p)].LeadIDs {
			id = a.current(id)
			if _, dup := seen[id]; dup || s.People[id] == nil {
				continue
			}
			seen[id] = struct{}{}
			all = append(all, id)
		}
	}
	kept := all
	if t.MaxResults > 0 && len(kept) > t.MaxResults {
		kept = kept[:t.MaxResults]
	}
	keptSet := make(map[string]struct{}, len(kept))
	for _, id := range kept {
		keptSet[id] = struct{}{}
		addFoundBy(s.People[id], addr)
		s.touchPerson(id)
	}
	done := &SplitTree{Hash: t.Hash, Generation: t.Generation, Request: t.Request, RequestHash: t.RequestHash,
		Dimensions: t.Dimensions, MaxResults: t.MaxResults}
	for _, p := range paths {
		n := *byKey[pathKey(p)]
		n.LeadIDs = nil
		done.Nodes = append(done.Nodes, &n)
	}
	rec := &Search{
		Address: addr, Generation: t.Generation, Request: t.Request, RequestHash: t.RequestHash,
		RanAt: a.at, ResultCount: len(all), MaxResults: t.MaxResults,
		Capped: !done.Complete(), LeadIDs: slices.Clone(kept), Split: done,
		// Results naming erased people, over all sub-searches (a person
		// in several counts in each).
		Suppressed: suppressed,
	}
	// The run's changes: those its sub-searches saw, from the first on.
	since := a.at
	for _, n := range done.Nodes {
		if n.RanAt.Before(since) {
			since = n.RanAt
		}
	}
	rec.Changed = s.changedBy(kept, addr, since)
	a.putSearch(rec, keptSet)
}

// SplitSummary says how complete a finished split run is.
type SplitSummary struct {
	// SubSearches is the number of sub-searches run (the root included).
	SubSearches int `json:"sub_searches"`
	// People is the number of distinct people found (before max_results).
	People int `json:"people"`
	// Complete is true when no leaf is still at the cap.
	Complete bool `json:"complete"`
	// Saturated names the leaves still at the cap by their filters, like
	// industryFilter=["Internet and IT"] levelFilter=["Senior"].
	Saturated []string `json:"saturated_leaves"`
}

// Summary is the completeness of the run rec records; nil when rec is not
// a split search.
func (rec *Search) SplitSummary() *SplitSummary {
	if rec == nil || rec.Split == nil {
		return nil
	}
	t := rec.Split
	out := &SplitSummary{SubSearches: len(t.Nodes), People: rec.ResultCount, Saturated: []string{}}
	for _, n := range t.SplitLeaves() {
		out.Saturated = append(out.Saturated, SplitFilters(t.Dimensions, n.Path))
	}
	out.Complete = len(out.Saturated) == 0
	return out
}

// Verdict is "complete" or "incomplete: N leaves still at the cap; add a
// dimension to split_by".
func (s *SplitSummary) Verdict() string {
	if s.Complete {
		return "complete"
	}
	leaves := "leaves"
	if len(s.Saturated) == 1 {
		leaves = "leaf"
	}
	return fmt.Sprintf("incomplete: %d %s still at the cap; add a dimension to split_by", len(s.Saturated), leaves)
}
