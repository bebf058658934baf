package arguments

import "github.com/spf13/pflag"

// Version is the command line of `leadsync version`: nothing to choose.
type Version struct{}

// VersionFlags are the flags of version: none.
type VersionFlags struct{}

// Register declares the flags of version on fs: none.
func (*VersionFlags) Register(*pflag.FlagSet) {}

// ParseVersion checks the command line of version.
func ParseVersion(_ VersionFlags, args []string) (*Version, error) {
	if err := noArgs("leadsync version", args); err != nil {
		return nil, err
	}
	return &Version{}, nil
}
