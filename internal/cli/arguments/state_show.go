package arguments

import "github.com/spf13/pflag"

// StateShow is the command line of `leadsync state show`.
type StateShow struct {
	State State
	// Address is a search, a profile or person.<id>.
	Address string
	View    ViewType
}

// StateShowFlags are the flags of state show as given.
type StateShowFlags struct {
	State State
	JSON  bool
}

// Register declares the flags of state show on fs.
func (fl *StateShowFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.JSON, "json", false, "print the record as JSON")
	fl.State.Register(fs)
}

// ParseStateShow checks the command line of state show.
func ParseStateShow(fl StateShowFlags, args []string) (*StateShow, error) {
	addr, err := exactlyOne("leadsync state show", "ADDRESS", args)
	if err != nil {
		return nil, err
	}
	return &StateShow{State: fl.State, Address: addr, View: view(fl.JSON)}, nil
}
