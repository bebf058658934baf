package cli

import (
	"maps"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newConsoleCmd(f *Factory) *cobra.Command {
	var fl arguments.ConsoleFlags
	cmd := &cobra.Command{
		Use:   "console",
		Short: "Try expressions against the configuration and the state",
		Long: `Console evaluates expressions as the configuration would, one per line of
standard input, and prints each value in the configuration's own syntax, as
terraform console does: a local, a variable, a function call, a for
expression, search.NAME and profile.NAME (the instances a for_each or count
expands to: each instance's address, request and people found in the
state), module.NAME (a module call's instances, each with its own search,
profile and module).

A line "where EXPR" lists the people of the state EXPR selects, reading
person.<field> as a sheet's where does or lead.<field> as an enrich
block's. "help" says this again; "exit" or the end of the input stops.

An error is shown and the next line is read. Without a terminal, console
exits 1 at the end when a line failed. It makes no call, takes no lock and
writes nothing.`,
		Example: `  echo 'local.cities' | leadsync console
  echo 'keys(search.cto)' | leadsync console
  echo 'where person.validationStatus == "valid"' | leadsync console
  leadsync console --var market=uk < checks.txt
  leadsync console`,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseConsole, func(_ *cobra.Command, a *arguments.Console) error {
		return runConsole(f, a)
	})
	return cmd
}

// runConsole loads the configuration and finds the state, then runs the
// console over standard input; it reads the state as a Base (no lock)
// when a line needs it (run.ConsoleSession).
func runConsole(f *Factory, a *arguments.Console) error {
	cfg, diags := loadConfigNoLists(f, a.State.Vars)
	writeDiagnostics(f, cfg, diags)
	if diags.HasErrors() {
		views.ConsoleConfigErrors(f.IO.ErrOut)
		return silentExit(ExitError)
	}
	src, err := sourceOf(f, a.State, cfg)
	if err != nil {
		return err
	}
	defer src.close()
	sess, err := run.NewConsoleSession(cfg, func() (*state.Base, error) { return backend.OpenBase(src.backend) })
	if err != nil {
		return err
	}
	render := func(diags hcl.Diagnostics, line string, n int) {
		files := map[string]*hcl.File{}
		maps.Copy(files, cfg.DiagFiles())
		files[config.ConsoleFile] = &hcl.File{Bytes: config.ConsoleSource(line, n)}
		f.failures.addDiags(cfg, diags)
		renderWithFiles(f.IO.ErrOut, files, cfg.ScrubDiagnostics(diags), f.IO.ColorErr())
	}
	view := views.NewConsole(f.IO.Out, f.IO.Out, render)
	failed, err := run.Console(sess, f.IO.In, view, f.IO.InTTY)
	if err != nil {
		return err
	}
	if failed > 0 && !f.IO.InTTY {
		return silentExit(ExitError)
	}
	return nil
}
