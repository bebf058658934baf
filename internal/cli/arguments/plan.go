package arguments

import (
	"errors"

	"github.com/spf13/pflag"
)

// Plan is the command line of `leadsync plan`.
type Plan struct {
	Vars Vars
	// Out is --out: save the plan to this file (relative to --chdir).
	Out string
	// View is human, JSON (--json) or a pull-request comment (--markdown).
	View ViewType
	// CompareTo is --compare-to: the base branch's plan --json, for the
	// comment (ViewMarkdown only).
	CompareTo        string
	DetailedExitcode bool
	// Offline makes no call: the remaining requests are not checked.
	Offline bool
	Targets []string
	Replace []string
	// TakeOver is --take-over: plan a workspace another configuration
	// fills as this one's.
	TakeOver bool
}

// PlanFlags are the flags of plan as given.
type PlanFlags struct {
	Vars             Vars
	Out              string
	JSON             bool
	Markdown         bool
	CompareTo        string
	DetailedExitcode bool
	Offline          bool
	Targets          []string
	Replace          []string
	TakeOver         bool
}

// Register declares the flags of plan on fs.
func (fl *PlanFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&fl.Out, "out", "", "save the plan to `FILE` for \"leadsync apply FILE\"")
	fs.BoolVar(&fl.JSON, "json", false, "print the plan as one JSON object")
	fs.BoolVar(&fl.Markdown, "markdown", false, "print the plan as a pull-request comment (GitHub Markdown)")
	fs.StringVar(&fl.CompareTo, "compare-to", "", "with --markdown: show the difference from the plan --json in `FILE` (the base branch's)")
	fs.BoolVar(&fl.DetailedExitcode, "detailed-exitcode", false, "exit 2 when the plan has changes (0: none, 1: error)")
	fs.BoolVar(&fl.Offline, "offline", false, "make no call: skip the check of the remaining requests")
	fs.StringArrayVar(&fl.Targets, "target", nil, "plan only `ADDRESS` and what it reads (repeatable)")
	fs.StringArrayVar(&fl.Replace, "replace", nil, "run search, read profile or read every person of track `ADDRESS` again even if up to date (repeatable)")
	fs.BoolVar(&fl.TakeOver, "take-over", false, "plan a workspace that another configuration fills as this one's (it replaces it)")
	fl.Vars.Register(fs)
}

// ParsePlan checks the command line of plan.
func ParsePlan(fl PlanFlags, args []string) (*Plan, error) {
	if err := noArgs("leadsync plan", args); err != nil {
		return nil, err
	}
	v, err := outputForm(fl.JSON, fl.Markdown, fl.CompareTo)
	if err != nil {
		return nil, err
	}
	return &Plan{
		Vars: fl.Vars, Out: fl.Out, View: v, CompareTo: fl.CompareTo, DetailedExitcode: fl.DetailedExitcode,
		Offline: fl.Offline, Targets: fl.Targets, Replace: fl.Replace, TakeOver: fl.TakeOver,
	}, nil
}

// outputForm is the view of a command that prints a plan: --json or
// --markdown (with --compare-to), not both.
func outputForm(asJSON, markdown bool, compareTo string) (ViewType, error) {
	switch {
	case markdown && asJSON:
		return 0, errors.New("--markdown and --json cannot be used together: choose one form")
	case compareTo != "" && !markdown:
		return 0, errors.New("--compare-to needs --markdown: the difference is shown in the pull-request comment")
	case markdown:
		return ViewMarkdown, nil
	}
	return view(asJSON), nil
}
