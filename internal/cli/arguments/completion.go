package arguments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Shells are the shells `leadsync completion` writes a script for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// Completion is the command line of `leadsync completion`.
type Completion struct {
	// Shell is one of Shells.
	Shell string
}

// CompletionFlags are the flags of completion: none.
type CompletionFlags struct{}

// Register declares the flags of completion on fs: none.
func (*CompletionFlags) Register(*pflag.FlagSet) {}

// ParseCompletion checks the command line of completion.
func ParseCompletion(_ CompletionFlags, args []string) (*Completion, error) {
	shell, err := exactlyOne("leadsync completion", strings.Join(Shells, "|"), args)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(Shells, shell) {
		sorted := slices.Sorted(slices.Values(Shells))
		return nil, &UsageError{Problem: fmt.Sprintf("leadsync completion: %q is not one of %s", shell, strings.Join(sorted, ", "))}
	}
	return &Completion{Shell: shell}, nil
}
