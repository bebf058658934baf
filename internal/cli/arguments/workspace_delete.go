package arguments

import "github.com/spf13/pflag"

// WorkspaceDelete is the command line of `leadsync workspace delete`.
type WorkspaceDelete struct {
	Vars Vars
	Name string
	// Force deletes a workspace that holds state, with everything in it.
	Force bool
}

// WorkspaceDeleteFlags are the flags of workspace delete as given.
type WorkspaceDeleteFlags struct {
	Vars  Vars
	Force bool
}

// Register declares the flags of workspace delete on fs.
func (fl *WorkspaceDeleteFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.Force, "force", false, "delete a workspace that holds state, with everything in it")
	fl.Vars.Register(fs)
}

// ParseWorkspaceDelete checks the command line of workspace delete.
func ParseWorkspaceDelete(fl WorkspaceDeleteFlags, args []string) (*WorkspaceDelete, error) {
	name, err := exactlyOne("leadsync workspace delete", "NAME", args)
	if err != nil {
		return nil, err
	}
	return &WorkspaceDelete{Vars: fl.Vars, Name: name, Force: fl.Force}, nil
}
