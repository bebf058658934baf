package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// stateListOptions are the inputs of `leadsync state list`.
type stateListOptions struct {
	state    stateFlags
	noPeople bool
	prefixes []string
}

func newStateListCmd(f *Factory) *cobra.Command {
	opts := &stateListOptions{}
	cmd := &cobra.Command{
		Use:   "list [PREFIX...]",
		Short: "List the addresses in the state",
		Long: `List prints one address per line: searches, then profiles, then people as
person.<id>. With prefixes, only the addresses that start with one of them.`,
		Example: `  leadsync state list
  leadsync state list search.cto
  leadsync state list --no-people`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.prefixes = args
			return runStateList(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.noPeople, "no-people", false, "leave out person.<id> lines")
	opts.state.register(cmd)
	return cmd
}

func runStateList(f *Factory, opts *stateListOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	s, err := src.backend.Load()
	if err != nil {
		return err
	}
	w := newStateWriter(f.IO.Out)
	for _, addr := range s.Addresses(!opts.noPeople) {
		if matchesPrefix(addr, opts.prefixes) {
			w.printf("%s\n", addr)
		}
	}
	return w.flush()
}

func matchesPrefix(addr string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(addr, p) {
			return true
		}
	}
	return false
}
