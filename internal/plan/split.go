package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// SplitPlan is what the plan says of a search with split_by.
type SplitPlan struct {
	// SplitBy are the dimensions split by (attribute names), in order;
	// dimensions the search sets to a single value are left out.
	SplitBy []string `json:"split_by"`
	// SubSearches are the sub-searches certain to run (the root included),
	// SubSearchesMax the bound: every node that may saturate split down to
	// the last dimension.
	SubSearches    int `json:"sub_searches"`
	SubSearchesMax int `json:"sub_searches_max"`
	// Resumed is true when a run stopped in the middle is continued;
	// Done counts its sub-searches already completed (not run again).
	Resumed bool `json:"resumed"`
	Done    int  `json:"done"`
	// Last is the completeness of the last finished run; nil before one.
	Last *state.SplitSummary `json:"last,omitempty"`
}

// SplitDimensions converts a search's split_by to state's form.
func SplitDimensions(s *config.Search) []state.SplitDimension {
	if s.SplitBy == nil {
		return nil
	}
	out := make([]state.SplitDimension, 0, len(s.SplitBy))
	for _, d := range s.SplitBy {
		out = append(out, state.SplitDimension{Param: d.Param, Values: d.Values})
	}
	return out
}

// SplitHash identifies a split search's runs: its generation, request
// and dimensions (see state.SplitHash).
func SplitHash(gen api.Generation, s *config.Search) string {
	body, err := json.Marshal(s.Request)
	if err != nil {
		return ""
	}
	return state.SplitHash(gen, body, SplitDimensions(s))
}

// splitSearch fills the calls of a split search's change c from what
// state holds: the nodes still to run are certain, their possible
// subtrees bound the rest. It returns the people the run may bring.
func (b *builder) splitSearch(s *config.Search, c *Change) {
	gen := b.cfg.API.Generation
	hash := SplitHash(gen, s)
	dims := SplitDimensions(s)
	sp := &SplitPlan{SplitBy: splitNames(s), Last: b.st.Searches[s.Address].SplitSummary()}
	if sp.SplitBy == nil {
		sp.SplitBy = []string{}
	}
	c.Split = sp
	if c.CallsMax == 0 {
		return
	}
	pr := b.st.SplitPending(s.Address, hash, dims)
	c.Calls, c.CallsMax = len(pr.Pending), pr.Max
	if c.CallsMax < c.Calls {
		c.CallsMax = c.Calls // cannot happen; keep the bound honest regardless
	}
	sp.SubSearches, sp.SubSearchesMax = c.Calls, c.CallsMax
	sp.Resumed, sp.Done = pr.Resumed, pr.Done
}

// splitResumable reports whether a run of s stopped in the middle waits in
// state with the search's current hash.
func (b *builder) splitResumable(s *config.Search) bool {
	t := b.st.Splits[s.Address]
	return t != nil && s.SplitBy != nil && t.Hash == SplitHash(b.cfg.API.Generation, s)
}

// splitCurrent reports whether the last run of s split it as configured
// now (or, without split_by, did not split it).
func (b *builder) splitCurrent(s *config.Search, rec *state.Search) bool {
	if s.SplitBy == nil {
		return rec.Split == nil
	}
	return rec.Split != nil && rec.Split.Hash == SplitHash(b.cfg.API.Generation, s)
}

// splitNames are the attribute names of the dimensions split by.
func splitNames(s *config.Search) []string {
	var out []string
	for _, d := range s.SplitBy {
		out = append(out, d.Attribute)
	}
	return out
}

// splitDetail describes a split search's plan for people, with the
// completeness of its last run when there is one.
func splitDetail(s *config.Search, sp *SplitPlan) string {
	d := splitCalls(s, sp)
	if sp.Last != nil {
		d += "; last run " + sp.Last.Verdict()
	}
	return d
}

func splitCalls(s *config.Search, sp *SplitPlan) string {
	var dims []string
	for _, d := range s.SplitBy {
		dims = append(dims, fmt.Sprintf("%s (%d)", d.Attribute, len(d.Values)))
	}
	by := "split by " + strings.Join(dims, " x ")
	if len(dims) == 0 {
		by = "split_by has nothing to split (each dimension is set to one value)"
	}
	switch {
	case sp.SubSearchesMax == 0:
		return by
	case sp.Resumed:
		return fmt.Sprintf("%s; resumes a stopped run: %s done, %s to run, up to %s", by,
			plural(sp.Done, "sub-search", "sub-searches"), thousands(sp.SubSearches), thousands(sp.SubSearchesMax))
	case sp.SubSearches == sp.SubSearchesMax:
		return fmt.Sprintf("%s; %s", by, plural(sp.SubSearches, "sub-search", "sub-searches"))
	}
	return fmt.Sprintf("%s; %s certain, up to %s if results saturate", by,
		plural(sp.SubSearches, "sub-search", "sub-searches"), thousands(sp.SubSearchesMax))
}
