package arguments

import "github.com/spf13/pflag"

// Console is the command line of `leadsync console`.
type Console struct {
	State State
}

// ConsoleFlags are the flags of console as given.
type ConsoleFlags struct {
	State State
}

// Register declares the flags of console on fs.
func (fl *ConsoleFlags) Register(fs *pflag.FlagSet) {
	fl.State.Register(fs)
}

// ParseConsole checks the command line of console: no arguments.
func ParseConsole(fl ConsoleFlags, args []string) (*Console, error) {
	if err := noArgs("leadsync console", args); err != nil {
		return nil, err
	}
	return &Console{State: fl.State}, nil
}
