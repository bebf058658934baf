package arguments

import "github.com/spf13/pflag"

// Usage is the command line of `leadsync usage`.
type Usage struct {
	Vars Vars
	View ViewType
}

// UsageFlags are the flags of usage as given.
type UsageFlags struct {
	Vars Vars
	JSON bool
}

// Register declares the flags of usage on fs.
func (fl *UsageFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.JSON, "json", false, "print the usage as one JSON object")
	fl.Vars.Register(fs)
}

// ParseUsage checks the command line of usage.
func ParseUsage(fl UsageFlags, args []string) (*Usage, error) {
	if err := noArgs("leadsync usage", args); err != nil {
		return nil, err
	}
	return &Usage{Vars: fl.Vars, View: view(fl.JSON)}, nil
}
