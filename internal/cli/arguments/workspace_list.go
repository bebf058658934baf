package arguments

import "github.com/spf13/pflag"

// WorkspaceList is the command line of `leadsync workspace list`.
type WorkspaceList struct {
	Vars Vars
}

// WorkspaceListFlags are the flags of workspace list as given.
type WorkspaceListFlags struct {
	Vars Vars
}

// Register declares the flags of workspace list on fs.
func (fl *WorkspaceListFlags) Register(fs *pflag.FlagSet) { fl.Vars.Register(fs) }

// ParseWorkspaceList checks the command line of workspace list.
func ParseWorkspaceList(fl WorkspaceListFlags, args []string) (*WorkspaceList, error) {
	if err := noArgs("leadsync workspace list", args); err != nil {
		return nil, err
	}
	return &WorkspaceList{Vars: fl.Vars}, nil
}
