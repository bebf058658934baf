package arguments

import "github.com/spf13/pflag"

// StateRecover is the command line of `leadsync state recover`.
type StateRecover struct {
	State State
}

// StateRecoverFlags are the flags of state recover as given.
type StateRecoverFlags struct {
	State State
}

// Register declares the flags of state recover on fs.
func (fl *StateRecoverFlags) Register(fs *pflag.FlagSet) { fl.State.Register(fs) }

// ParseStateRecover checks the command line of state recover.
func ParseStateRecover(fl StateRecoverFlags, args []string) (*StateRecover, error) {
	if err := noArgs("leadsync state recover", args); err != nil {
		return nil, err
	}
	return &StateRecover{State: fl.State}, nil
}
