package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newOutputCmd(f *Factory) *cobra.Command {
	var fl arguments.OutputFlags
	cmd := &cobra.Command{
		Use:   "output [NAME]",
		Short: "Show the root module's outputs and the people they hold",
		Long: `Output shows each output block of the root module (or the one NAME):
its description, the people of the blocks its value names, and one line
per block instance with the people the state holds of it (a search's or
a profile's people, an import's, the people an enrich block enriched or a
track block watches), or "not run yet". It reads the configuration and
the state, makes no call and takes no lock. --json prints one object:
format_version and outputs, each with name, description, people and
blocks (address, kind, people, recorded).`,
		Example: `  leadsync output
  leadsync output ctos
  leadsync output --json | jq '.outputs[] | {name, people}'`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseOutput, func(_ *cobra.Command, a *arguments.Output) error {
		return runOutput(f, a)
	})
	return cmd
}

func runOutput(f *Factory, a *arguments.Output) error {
	cfg, err := configForState(f, a.State.Vars, true)
	if err != nil {
		return err
	}
	var names []string
	for _, o := range cfg.Outputs {
		names = append(names, o.Name)
	}
	if a.Name != "" && !contains(names, a.Name) {
		return unknownOutput(a.Name, names)
	}
	src, b, err := openBaseOf(f, a.State, cfg)
	if err != nil {
		return err
	}
	defer src.close()
	defer b.Close()
	values, err := run.Outputs(cfg, b, a.Name)
	if err != nil {
		return err
	}
	return views.NewOutput(f.IO.Out, a.View == arguments.ViewJSON).Outputs(values)
}

// unknownOutput is the error of an output NAME the root does not declare.
func unknownOutput(name string, names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("output %q: the root module declares no output block", name)
	}
	hint := ""
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		hint = fmt.Sprintf(" Did you mean %q?", near[0])
	}
	return fmt.Errorf("output %q: the root module declares no output of that name.%s Its outputs are %s", name, hint, strings.Join(names, ", "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
