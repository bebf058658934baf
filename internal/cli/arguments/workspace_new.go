package arguments

import "github.com/spf13/pflag"

// WorkspaceNew is the command line of `leadsync workspace new`.
type WorkspaceNew struct {
	Vars Vars
	// Name is the workspace to create (the backend checks the name).
	Name string
}

// WorkspaceNewFlags are the flags of workspace new as given.
type WorkspaceNewFlags struct {
	Vars Vars
}

// Register declares the flags of workspace new on fs.
func (fl *WorkspaceNewFlags) Register(fs *pflag.FlagSet) { fl.Vars.Register(fs) }

// ParseWorkspaceNew checks the command line of workspace new.
func ParseWorkspaceNew(fl WorkspaceNewFlags, args []string) (*WorkspaceNew, error) {
	name, err := exactlyOne("leadsync workspace new", "NAME", args)
	if err != nil {
		return nil, err
	}
	return &WorkspaceNew{Vars: fl.Vars, Name: name}, nil
}
