package arguments

import "github.com/spf13/pflag"

// StatePull is the command line of `leadsync state pull`.
type StatePull struct {
	Vars Vars
}

// StatePullFlags are the flags of state pull as given.
type StatePullFlags struct {
	Vars Vars
}

// Register declares the flags of state pull on fs.
func (fl *StatePullFlags) Register(fs *pflag.FlagSet) { fl.Vars.Register(fs) }

// ParseStatePull checks the command line of state pull.
func ParseStatePull(fl StatePullFlags, args []string) (*StatePull, error) {
	if err := noArgs("leadsync state pull", args); err != nil {
		return nil, err
	}
	return &StatePull{Vars: fl.Vars}, nil
}
