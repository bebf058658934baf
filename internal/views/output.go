package views

import (
	"io"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// OutputValue is one output of the root module as leadsync output shows
// it: the blocks its value names, each instance with the people the state
// holds of it, and the distinct people of them all.
type OutputValue struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Blocks      []OutputBlock `json:"blocks"`
	// People are the distinct people of its blocks.
	People int `json:"people"`
}

// OutputBlock is one instance an output names: a search's or profile's
// people, an import's, the people an enrich block enriched or a track
// block watches; Recorded is false when the state holds nothing of it yet
// (not run).
type OutputBlock struct {
	Address  string `json:"address"`
	Kind     string `json:"kind"`
	People   int    `json:"people"`
	Recorded bool   `json:"recorded"`
}

// OutputValues are the outputs of cfg's root module with what st holds
// of their blocks, in declaration order.
func OutputValues(cfg *config.Config, st *state.State) []OutputValue {
	out := make([]OutputValue, 0, len(cfg.Outputs))
	for _, o := range cfg.Outputs {
		v := OutputValue{Name: o.Name, Description: o.Description, Blocks: []OutputBlock{}}
		all := map[string]bool{}
		for _, addr := range instancesOf(cfg, o.Addresses) {
			a, _ := cfg.Addr(addr)
			ids, recorded := peopleOf(st, a.Kind, addr)
			for _, id := range ids {
				all[id] = true
			}
			v.Blocks = append(v.Blocks, OutputBlock{Address: addr, Kind: string(a.Kind), People: len(ids), Recorded: recorded})
		}
		v.People = len(all)
		out = append(out, v)
	}
	return out
}

// instancesOf are the instances addrs name: a search or profile block's
// instances, an enrich, track or import block itself; each once.
func instancesOf(cfg *config.Config, addrs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range addrs {
		insts := cfg.Resolve([]string{a})
		if len(insts) == 0 {
			insts = []string{a}
		}
		for _, i := range insts {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	return out
}

// peopleOf are the IDs of the people st holds of the instance addr, of
// kind k, and whether st holds a record of it at all.
func peopleOf(st *state.State, k kind.Kind, addr string) ([]string, bool) {
	switch k {
	case kind.Search:
		if s := st.Searches[addr]; s != nil {
			return s.LeadIDs, true
		}
	case kind.Profile:
		if p := st.Profiles[addr]; p != nil {
			if p.PersonID == "" {
				return nil, true
			}
			return []string{p.PersonID}, true
		}
	case kind.Import:
		if im := st.Imports[addr]; im != nil {
			return im.PersonIDs, true
		}
	case kind.Enrich, kind.Track:
		var ids []string
		for id, p := range st.People {
			if (p.Enrichment != nil && (p.Enrichment.By == addr || p.Enrichment.CopiedBy == addr)) || !p.Tracked[addr].IsZero() {
				ids = append(ids, id)
			}
		}
		return ids, len(ids) > 0
	}
	return nil, false
}

// Output is the view of leadsync output.
type Output interface {
	Outputs(values []OutputValue) error
}

// NewOutput returns the JSON or the human view of leadsync output.
func NewOutput(w io.Writer, asJSON bool) Output {
	if asJSON {
		return outputJSON{w}
	}
	return outputHuman{w}
}

var (
	_ Output = outputHuman{}
	_ Output = outputJSON{}
)

// outputHuman prints each output as name = its people, its description
// as a comment, and one line per block.
type outputHuman struct{ w io.Writer }

func (v outputHuman) Outputs(values []OutputValue) error {
	w := newLineWriter(v.w)
	if len(values) == 0 {
		w.printf("No outputs: the root module declares no output block (output \"ctos\" { value = [search.cto] }).\n")
	}
	for i, o := range values {
		if i > 0 {
			w.printf("\n")
		}
		if o.Description != "" {
			w.printf("# %s\n", o.Description)
		}
		w.printf("%s = %s in %s\n", o.Name, textfmt.Plural(o.People, "person"), textfmt.Plural(len(o.Blocks), "block"))
		width := 0
		for _, b := range o.Blocks {
			width = max(width, textfmt.Width(b.Address))
		}
		for _, b := range o.Blocks {
			what := textfmt.Plural(b.People, "person")
			if !b.Recorded {
				what = "not run yet"
			}
			w.printf("  %s  %s\n", pad(b.Address, width), what)
		}
	}
	return w.flush()
}

// OutputJSON is the --json form of leadsync output.
type OutputJSON struct {
	FormatVersion string        `json:"format_version"`
	Outputs       []OutputValue `json:"outputs"`
}

type outputJSON struct{ w io.Writer }

func (v outputJSON) Outputs(values []OutputValue) error {
	return writeJSONDoc(v.w, OutputJSON{FormatVersion: "1", Outputs: values})
}
