package views

import (
	"io"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// OutputValue is one output of the root module in leadsync output's JSON
// form (run.OutputValue): the blocks its value names, each instance with
// the people the state holds of it, and the distinct people of them all.
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

// outputValues are values in the form of OutputValue.
func outputValues(values []run.OutputValue) []OutputValue {
	out := make([]OutputValue, 0, len(values))
	for _, v := range values {
		o := OutputValue{Name: v.Name, Description: v.Description, People: v.People, Blocks: make([]OutputBlock, 0, len(v.Blocks))}
		for _, b := range v.Blocks {
			o.Blocks = append(o.Blocks, OutputBlock(b))
		}
		out = append(out, o)
	}
	return out
}

// Output is the view of leadsync output.
type Output interface {
	Outputs(values []run.OutputValue) error
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

func (v outputHuman) Outputs(runValues []run.OutputValue) error {
	values := outputValues(runValues)
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

func (v outputJSON) Outputs(values []run.OutputValue) error {
	return writeJSONDoc(v.w, OutputJSON{FormatVersion: "1", Outputs: outputValues(values)})
}
