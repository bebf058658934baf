package arguments

import "github.com/spf13/pflag"

// WorkspaceShow is the command line of `leadsync workspace show`.
type WorkspaceShow struct{}

// WorkspaceShowFlags are the flags of workspace show as given: none.
type WorkspaceShowFlags struct{}

// Register declares the flags of workspace show on fs: none.
func (fl *WorkspaceShowFlags) Register(*pflag.FlagSet) {}

// ParseWorkspaceShow checks the command line of workspace show.
func ParseWorkspaceShow(_ WorkspaceShowFlags, args []string) (*WorkspaceShow, error) {
	if err := noArgs("leadsync workspace show", args); err != nil {
		return nil, err
	}
	return &WorkspaceShow{}, nil
}
