package cli

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newConsoleCmd(f *Factory) *cobra.Command {
	var fl arguments.ConsoleFlags
	cmd := &cobra.Command{
		Use:   "console",
		Short: "Try expressions and where conditions against the configuration and the state",
		Long: `Console reads one line at a time (from a terminal, or piped in) and prints
what it gives:

  EXPRESSION     evaluated as the configuration's attributes are, with
                 var.*, local.* and the functions: a for_each value, a
                 city list, a label template
  where EXPR     an enrich block's where (lead.<field>) tried on every
                 person of the state: how many pass, and the first names

A sensitive value is shown as (sensitive value). exit, or the end of the
input, ends it. Nothing is written and no call is made; no lock is taken.
With input that is not a terminal, the exit code is 1 when a line failed.`,
		Example: `  leadsync console
  echo 'toset(var.cities)' | leadsync console
  echo 'where lead.company != "" && !strcontains(lower(lead.title), "assistant")' | leadsync console`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseConsole, func(_ *cobra.Command, a *arguments.Console) error {
		return runConsole(f, a)
	})
	return cmd
}

func runConsole(f *Factory, a *arguments.Console) error {
	cfg, err := configForState(f, a.State.Vars, true)
	if err != nil {
		return err
	}
	var src *stateSource
	if a.State.Path != "" {
		src, err = openStateSource(f, a.State)
	} else {
		src, err = openSource(f, cfg)
	}
	if err != nil {
		return err
	}
	defer src.close()
	st, err := src.backend.Load()
	if err != nil {
		return err
	}
	view := views.NewConsole(f.IO.Out, f.IO.ErrOut)
	failed := false
	in := bufio.NewScanner(f.IO.In)
	for {
		if f.IO.InTTY {
			fmt.Fprint(f.IO.Out, "> ")
		}
		if !in.Scan() {
			break
		}
		line := strings.TrimSpace(in.Text())
		if line == "exit" {
			break
		}
		if line == "" {
			continue
		}
		r := run.ConsoleLine(cfg, st, line)
		failed = failed || r.Diags.HasErrors() || r.Err != nil
		view.Result(r)
	}
	if failed && !f.IO.InTTY {
		return silentExit(ExitError)
	}
	return nil
}
