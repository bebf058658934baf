package arguments

import "github.com/spf13/pflag"

// Console is the command line of `leadsync console`.
type Console struct {
	// State locates the configuration's variables and the state the
	// expressions read (--state: a local state file instead).
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

// ParseConsole checks the command line of console: no arguments (the
// expressions come on standard input).
func ParseConsole(fl ConsoleFlags, args []string) (*Console, error) {
	if err := noArgs("leadsync console", args); err != nil {
		return nil, &UsageError{Problem: err.Error() + "; it reads expressions from standard input: echo 'local.cities' | leadsync console"}
	}
	return &Console{State: fl.State}, nil
}
