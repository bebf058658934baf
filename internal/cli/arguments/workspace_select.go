package arguments

import "github.com/spf13/pflag"

// WorkspaceSelect is the command line of `leadsync workspace select`.
type WorkspaceSelect struct {
	Vars Vars
	// Name is the workspace to select ("default": the default one).
	Name string
	// OrCreate creates the workspace when it does not exist.
	OrCreate bool
}

// WorkspaceSelectFlags are the flags of workspace select as given.
type WorkspaceSelectFlags struct {
	Vars     Vars
	OrCreate bool
}

// Register declares the flags of workspace select on fs.
func (fl *WorkspaceSelectFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.OrCreate, "or-create", false, "create the workspace when it does not exist")
	fl.Vars.Register(fs)
}

// ParseWorkspaceSelect checks the command line of workspace select.
func ParseWorkspaceSelect(fl WorkspaceSelectFlags, args []string) (*WorkspaceSelect, error) {
	name, err := exactlyOne("leadsync workspace select", "NAME", args)
	if err != nil {
		return nil, err
	}
	return &WorkspaceSelect{Vars: fl.Vars, Name: name, OrCreate: fl.OrCreate}, nil
}
