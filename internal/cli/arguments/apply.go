package arguments

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Apply is the command line of `leadsync apply`.
type Apply struct {
	Vars Vars
	// PlanFile is the saved plan to run exactly; "" plans now.
	PlanFile    string
	AutoApprove bool
	// Targets and Replace limit or force the plan made now (never with
	// PlanFile).
	Targets []string
	Replace []string
	// View is human, or JSON lines (--json, which never asks).
	View ViewType
	// Parallelism bounds the calls in flight; 0 leaves it to
	// api.parallelism.
	Parallelism int
	LockTimeout time.Duration
	// TakeOver is --take-over: a workspace another configuration fills
	// becomes this one's.
	TakeOver bool
}

// ApplyFlags are the flags of apply as given.
type ApplyFlags struct {
	Vars        Vars
	AutoApprove bool
	Targets     []string
	Replace     []string
	JSON        bool
	Parallelism optionalInt
	LockTimeout time.Duration
	TakeOver    bool
}

// Register declares the flags of apply on fs.
func (fl *ApplyFlags) Register(fs *pflag.FlagSet) {
	fl.Vars.Register(fs)
	fs.BoolVar(&fl.AutoApprove, "auto-approve", false, "skip the confirmation prompt")
	fs.BoolVar(&fl.TakeOver, "take-over", false, "fill a workspace that another configuration fills, from now on with this one (it replaces it)")
	fs.StringArrayVar(&fl.Targets, "target", nil, "limit the run to `ADDRESS` and what it depends on (repeatable)")
	fs.StringArrayVar(&fl.Replace, "replace", nil, "run `ADDRESS` again even if state has it (repeatable)")
	fs.BoolVar(&fl.JSON, "json", false, "stream progress as JSON lines (requires --auto-approve or a plan file)")
	fs.Var(&fl.Parallelism, "parallelism", "calls in flight at once (default: api.parallelism)")
	registerLockTimeout(fs, &fl.LockTimeout)
}

// ParseApply checks the command line of apply.
func ParseApply(fl ApplyFlags, args []string) (*Apply, error) {
	planFile, err := atMostOne("leadsync apply", "[PLANFILE]", args)
	if err != nil {
		return nil, err
	}
	switch {
	case planFile != "" && (len(fl.Targets) > 0 || len(fl.Replace) > 0):
		return nil, errors.New("--target and --replace cannot be used with a saved plan: they were fixed when the plan was made")
	case fl.JSON && !fl.AutoApprove && planFile == "":
		return nil, errors.New("--json needs --auto-approve or a saved plan: a JSON stream cannot ask for confirmation")
	case fl.Parallelism.set && fl.Parallelism.n < 1:
		return nil, fmt.Errorf("--parallelism must be at least 1, got %d", fl.Parallelism.n)
	}
	if err := checkLockTimeout(fl.LockTimeout); err != nil {
		return nil, err
	}
	return &Apply{
		Vars: fl.Vars, PlanFile: planFile, AutoApprove: fl.AutoApprove, Targets: fl.Targets, Replace: fl.Replace,
		View: view(fl.JSON), Parallelism: fl.Parallelism.n, LockTimeout: fl.LockTimeout, TakeOver: fl.TakeOver,
	}, nil
}
