package arguments

import "github.com/spf13/pflag"

// StateList is the command line of `leadsync state list`.
type StateList struct {
	State State
	// People lists the people (person.<id>) too; --no-people leaves them
	// out.
	People bool
	// Prefixes keep only the addresses that start with one of them; none
	// keeps all.
	Prefixes []string
	View     ViewType
}

// StateListFlags are the flags of state list as given.
type StateListFlags struct {
	State    State
	NoPeople bool
	JSON     bool
}

// Register declares the flags of state list on fs.
func (fl *StateListFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.NoPeople, "no-people", false, "leave out person.<id> lines")
	fs.BoolVar(&fl.JSON, "json", false, "print the addresses as one JSON object")
	fl.State.Register(fs)
}

// ParseStateList checks the command line of state list: any prefixes.
func ParseStateList(fl StateListFlags, args []string) (*StateList, error) {
	return &StateList{State: fl.State, People: !fl.NoPeople, Prefixes: list(args), View: view(fl.JSON)}, nil
}
