package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// A search with split_by runs as a tree of sub-searches (see state's
// split.go for the rules). Each sub-search is an ordinary call: paced,
// counted against the plan's bounds, and recorded in the journal as a
// state.EventSplit before its result is used. Which nodes to run comes from
// state.SplitPending, as in the plan: at the start the nodes state says
// are pending, then, as each completes, the children of the saturated ones.
// A run stopped in the middle stays in state and the next apply resumes it.

// splitRun is one split search of this run.
type splitRun struct {
	search *config.Search
	dims   []state.SplitDimension
	hash   string
	body   json.RawMessage // the search's own request
	// queued holds the nodes queued, in flight or completed in this run.
	queued map[string]bool
	// budget is what the plan allows this search (its calls_max).
	budget int
	// stopped is set when a sub-search failed: no further node is queued;
	// the next apply resumes the run.
	stopped bool
	// done is set when the tree is complete and the search's record made.
	done bool
	// ran counts the sub-searches completed in this run.
	ran int
}

func splitKey(path []string) string { return strings.Join(path, "\x00") }

// prepareSplit queues the pending nodes of a split search planned by c.
func (r *runner) prepareSplit(s *config.Search, c *plan.Change) error {
	gen := r.opts.Config.API.Generation
	body, err := json.Marshal(s.Request)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Address, err)
	}
	sr := &splitRun{search: s, dims: plan.SplitDimensions(s), hash: plan.SplitHash(gen, s), body: body,
		queued: map[string]bool{}, budget: c.CallsMax}
	if r.splits == nil {
		r.splits = map[string]*splitRun{}
	}
	r.splits[s.Address] = sr
	r.hadRun[s.Address] = r.st.Searches[s.Address] != nil
	r.queueSplit(sr)
	return nil
}

// queueSplit queues the nodes of sr that state says are pending and that
// this run has not queued yet, within the search's budget.
func (r *runner) queueSplit(sr *splitRun) {
	if sr.stopped || sr.done {
		return
	}
	r.mu.Lock()
	pr := r.st.SplitPending(sr.search.Address, sr.hash, sr.dims)
	r.mu.Unlock()
	for _, path := range pr.Pending {
		k := splitKey(path)
		if sr.queued[k] {
			continue
		}
		if sr.budget <= 0 {
			// Cannot happen when the plan's bound holds; the run stays
			// resumable rather than spending beyond it.
			sr.stopped = true
			if r.cut == "" {
				r.cut = fmt.Sprintf("%s: the plan's bound of %d sub-searches is reached; the split resumes at the next apply", sr.search.Address, r.planCalls(sr.search.Address))
			}
			return
		}
		sr.budget--
		sr.queued[k] = true
		r.pending[sr.search.Address]++
		r.push(task{
			call:  Call{Kind: kind.Search, Address: sr.search.Address, Label: searchLabel(sr.search), SubSearch: state.SplitFilters(sr.dims, path)},
			split: sr, path: path, search: sr.search,
		})
	}
}

func (r *runner) planCalls(addr string) int {
	if c := r.opts.Plan.Change(addr); c != nil {
		return c.CallsMax
	}
	return 0
}

// nodeRequest is the search's request with the node's dimensions set to
// its values.
func nodeRequest(sr *splitRun, path []string) api.SearchRequest {
	req := api.SearchRequest{Params: maps.Clone(sr.search.Request.Params), Raw: sr.search.Request.Raw}
	if req.Params == nil {
		req.Params = map[string]any{}
	}
	for d, v := range path {
		req.Params[sr.dims[d].Param] = []string{v}
	}
	return req
}

// splitEvent is the journal event of a completed sub-search.
func splitEvent(sr *splitRun, gen api.Generation, path []string, sent []byte, res *api.SearchResult) *state.Event {
	return &state.Event{Kind: state.EventSplit, Address: sr.search.Address, Split: &state.SplitEvent{
		Hash: sr.hash, Generation: gen, Request: sr.body, RequestHash: state.RequestHash(gen, sr.body),
		Dimensions: sr.dims, MaxResults: sr.search.MaxResults,
		Path: append([]string{}, path...), NodeRequest: sent, Leads: res.Leads, Raw: res.Raw,
	}}
}

// splitDone follows a recorded sub-search: when it completed the tree the
// search is done, else the children of saturated nodes are queued. It
// reports whether the node is a leaf still at the cap (cut off for good)
// and, for a node at the cap with a dimension left, that dimension.
func (r *runner) splitDone(t task) (cutOff bool, next string) {
	sr := t.split
	sr.ran++
	capped := r.lastSplitSaturated(sr, t.path)
	if r.st.Splits[sr.search.Address] == nil {
		sr.done = true
		r.ranSearches[sr.search.Address] = true
	} else {
		r.queueSplit(sr)
	}
	if d := len(t.path); capped && d < len(sr.dims) {
		return false, sr.dims[d].Attribute()
	}
	return capped, ""
}

// lastSplitSaturated reports whether the node at path returned the cap,
// from the run under way or, once complete, from the search's record.
func (r *runner) lastSplitSaturated(sr *splitRun, path []string) bool {
	k := splitKey(path)
	t := r.st.Splits[sr.search.Address]
	if t == nil {
		if rec := r.st.Searches[sr.search.Address]; rec != nil {
			t = rec.Split
		}
	}
	if t == nil {
		return false
	}
	for _, nd := range t.Nodes {
		if splitKey(nd.Path) == k {
			return nd.Saturated
		}
	}
	return false
}

// splitFailed stops queuing nodes of a split search after a failed
// sub-search; the run under way stays in state for the next apply.
func (r *runner) splitFailed(t task) {
	if t.split != nil {
		t.split.stopped = true
	}
}

// unfinishedSplits lists the split searches this run started and did not
// complete, with the sub-searches still pending in state.
func (r *runner) unfinishedSplits() []SplitUnfinished {
	var out []SplitUnfinished
	for addr, sr := range r.splits {
		if sr.done {
			continue
		}
		pr := r.st.SplitPending(addr, sr.hash, sr.dims)
		out = append(out, SplitUnfinished{Address: addr, Ran: sr.ran, Done: pr.Done, Pending: len(pr.Pending)})
	}
	return out
}

// SplitUnfinished is a split search whose run stopped before its tree was
// complete; the next apply resumes it without repeating a sub-search.
type SplitUnfinished struct {
	Address string
	Ran     int // sub-searches completed in this run
	Done    int // sub-searches of the run under way completed so far (all runs)
	Pending int // sub-searches known to be still needed (more may follow)
}
