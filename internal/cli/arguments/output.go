package arguments

import "github.com/spf13/pflag"

// Output is the command line of `leadsync output`.
type Output struct {
	State State
	// Name is the one output to show; "" shows them all.
	Name string
	View ViewType
}

// OutputFlags are the flags of output as given.
type OutputFlags struct {
	State State
	JSON  bool
}

// Register declares the flags of output on fs.
func (fl *OutputFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.JSON, "json", false, "print the outputs as one JSON object")
	fl.State.Register(fs)
}

// ParseOutput checks the command line of output: at most one NAME.
func ParseOutput(fl OutputFlags, args []string) (*Output, error) {
	name, err := atMostOne("leadsync output", "[NAME]", args)
	if err != nil {
		return nil, err
	}
	return &Output{State: fl.State, Name: name, View: view(fl.JSON)}, nil
}
