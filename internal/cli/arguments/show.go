package arguments

import (
	"errors"

	"github.com/spf13/pflag"
)

// Show is the command line of `leadsync show`: the state, or a saved plan.
type Show struct {
	// State locates the state shown when PlanFile is "".
	State State
	// PlanFile is a plan saved by plan --out, to show instead of the state.
	PlanFile string
	// View is human or JSON; a saved plan also as a pull-request comment
	// (ViewMarkdown, with CompareTo).
	View      ViewType
	CompareTo string
}

// ShowFlags are the flags of show as given.
type ShowFlags struct {
	State     State
	JSON      bool
	Markdown  bool
	CompareTo string
}

// Register declares the flags of show on fs.
func (fl *ShowFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.JSON, "json", false, "print one JSON object")
	fs.BoolVar(&fl.Markdown, "markdown", false, "print a saved plan as a pull-request comment (GitHub Markdown)")
	fs.StringVar(&fl.CompareTo, "compare-to", "", "with --markdown: show the difference from the plan --json in `FILE`")
	fl.State.Register(fs)
}

// ParseShow checks the command line of show.
func ParseShow(fl ShowFlags, args []string) (*Show, error) {
	planFile, err := atMostOne("leadsync show", "[PLANFILE]", args)
	if err != nil {
		return nil, err
	}
	v, err := outputForm(fl.JSON, fl.Markdown, fl.CompareTo)
	if err != nil {
		return nil, err
	}
	if v == ViewMarkdown && planFile == "" {
		return nil, errors.New("--markdown shows a saved plan: leadsync show --markdown PLANFILE")
	}
	return &Show{State: fl.State, PlanFile: planFile, View: v, CompareTo: fl.CompareTo}, nil
}
