package arguments

import "github.com/spf13/pflag"

// Help is the command line of `leadsync help`.
type Help struct {
	// Topic are the words of the command to explain ("state", "rm"); none
	// for leadsync itself. Whether they name a command is for the command
	// tree to say.
	Topic []string
}

// HelpFlags are the flags of help: none.
type HelpFlags struct{}

// Register declares the flags of help on fs: none.
func (*HelpFlags) Register(*pflag.FlagSet) {}

// ParseHelp checks the command line of help: any words.
func ParseHelp(_ HelpFlags, args []string) (*Help, error) {
	return &Help{Topic: list(args)}, nil
}
