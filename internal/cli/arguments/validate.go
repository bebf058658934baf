package arguments

import "github.com/spf13/pflag"

// Validate is the command line of `leadsync validate`.
type Validate struct {
	Vars Vars
	View ViewType
}

// ValidateFlags are the flags of validate as given.
type ValidateFlags struct {
	Vars Vars
	JSON bool
}

// Register declares the flags of validate on fs.
func (fl *ValidateFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.JSON, "json", false, "print the diagnostics as one JSON object (for CI)")
	fl.Vars.Register(fs)
}

// ParseValidate checks the command line of validate.
func ParseValidate(fl ValidateFlags, args []string) (*Validate, error) {
	if err := noArgs("leadsync validate", args); err != nil {
		return nil, err
	}
	return &Validate{Vars: fl.Vars, View: view(fl.JSON)}, nil
}
