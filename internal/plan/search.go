package plan

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// searchBound is the most people one run of s can bring: for a split
// search max_results, or the cap for every node of the whole tree.
func searchBound(s *config.Search) int {
	if s.SplitBy != nil {
		if s.MaxResults > 0 {
			return s.MaxResults
		}
		return api.MaxResults * state.SplitTreeSize(SplitDimensions(s), 0)
	}
	if s.MaxResults > 0 && s.MaxResults < api.MaxResults {
		return s.MaxResults
	}
	return api.MaxResults
}

// search plans one search instance.
func (b *builder) search(s *config.Search) *Change {
	rec := b.st.Searches[s.Address]
	c := &Change{Address: s.Address, Kind: kind.Search, Calls: 1, CallsMax: 1}
	gen := b.cfg.API.Generation
	switch {
	case rec == nil:
		c.Action, c.Reason, c.Detail = Run, ReasonNew, describeRequest(s.Request)
		if f := b.st.Failures[s.Address]; f != nil {
			c.Detail += fmt.Sprintf(" (last attempt %s failed: %s)", ago(b.now, f.At), oneLine(f.Message))
		}
	case b.replace[s.Address]:
		c.Action, c.Reason = Rerun, ReasonReplace
		c.Detail = fmt.Sprintf("replace requested; last run %s", ago(b.now, rec.RanAt))
	case rec.Generation != gen:
		c.Action, c.Reason = Rerun, ReasonGenerationChanged
		c.Detail = fmt.Sprintf("generation changed: %d -> %d", int(rec.Generation), int(gen))
	case !b.v.searchCurrent(s, rec):
		c.Action, c.Reason = Rerun, ReasonRequestChanged
		c.Detail = "changed: " + diffRequest(rec.Request, s.Request)
	case !b.splitCurrent(s, rec):
		c.Action, c.Reason = Rerun, ReasonSplitChanged
		c.Detail = "split_by changed"
	case rec.MaxResults > 0 && rec.ResultCount > rec.MaxResults && searchBound(s) > rec.MaxResults:
		// The last run dropped results that max_results now keeps.
		c.Action, c.Reason = Rerun, ReasonMaxResultsRaised
		c.Detail = fmt.Sprintf("max_results raised: the last run kept %d of %d results, %d allowed now",
			b.st.LeadCount(s.Address), rec.ResultCount, searchBound(s))
	case s.Refresh > 0 && b.now.Sub(rec.RanAt) >= s.Refresh:
		c.Action, c.Reason = Refresh, ReasonRefresh
		c.Detail = fmt.Sprintf("last run %s (refresh = %s)", ago(b.now, rec.RanAt), formatDuration(s.Refresh))
	case b.splitResumable(s):
		c.Action, c.Reason = Refresh, ReasonResume
		c.Detail = fmt.Sprintf("a run stopped in the middle; last complete run %s", ago(b.now, rec.RanAt))
	case s.MaxResults > 0 && b.st.LeadCount(s.Address) > s.MaxResults:
		// The last run kept more than max_results allows now: the first
		// max_results stay, in state as in the exports (state.EventTrim).
		c.Action, c.Reason, c.Calls, c.CallsMax = Update, ReasonMaxResultsLowered, 0, 0
		c.Detail = fmt.Sprintf("keep %s of %s (max_results lowered; no call)", thousands(s.MaxResults), plural(b.st.LeadCount(s.Address), "lead", "leads"))
	default:
		c.Action, c.Reason, c.Calls, c.CallsMax = None, ReasonUpToDate, 0, 0
		c.Detail = fmt.Sprintf("ran %s, %s kept", ago(b.now, rec.RanAt), plural(b.st.LeadCount(s.Address), "lead", "leads"))
	}
	if s.SplitBy != nil {
		b.splitSearch(s, c)
		switch {
		case c.CallsMax > 0:
			c.Detail += "; " + splitDetail(s, c.Split)
		case c.Split.Last != nil:
			c.Detail += fmt.Sprintf("; %s, %s", plural(c.Split.Last.SubSearches, "sub-search", "sub-searches"), c.Split.Last.Verdict())
		}
	}
	if c.CallsMax > 0 {
		b.running[s.Address] = searchBound(s)
	}
	return c
}

// searchesRun reports whether a search or profile of the plan runs.
func (b *builder) searchesRun() bool {
	for _, n := range b.running {
		if n > 0 {
			return true
		}
	}
	return false
}
