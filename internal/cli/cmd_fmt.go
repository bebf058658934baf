package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newFmtCmd(f *Factory) *cobra.Command {
	var fl arguments.FmtFlags
	cmd := &cobra.Command{
		Use:   "fmt [PATH...]",
		Short: "Rewrite configuration files in the canonical format",
		Long: `Fmt rewrites *.leads.hcl and *.leadvars.hcl files in the canonical format
(indentation, aligned equals signs) and prints the names of the files it
changed. PATH may be files or directories (default: the working directory);
"-" formats standard input to standard output.

A directory's configuration is formatted with the module folders it calls
(module blocks' source, nested calls too, a shared ../modules as well):
they are part of it. --recursive formats every subdirectory besides, as
terraform fmt -recursive does, skipping hidden ones (.leadsync, .git).

With --check nothing is written: fmt lists the files that are not formatted
and exits 1 when there is any, which suits CI.`,
		Example: `  leadsync fmt
  leadsync fmt --check --diff --recursive`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseFmt, func(_ *cobra.Command, a *arguments.Fmt) error {
		return runFmt(f, a)
	})
	return cmd
}

func runFmt(f *Factory, a *arguments.Fmt) error {
	var paths []string
	stdin := false
	for _, p := range a.Paths {
		if p == "-" {
			stdin = true
			continue
		}
		paths = append(paths, p)
	}
	files, err := run.FmtFiles(f.Dir, paths, a.Recursive)
	if err != nil {
		return err
	}
	if stdin {
		if err := fmtStdin(f, a); err != nil {
			return err
		}
	}
	changed, failed := 0, false
	view := views.NewFmt(f.IO.Out, f.IO.ErrOut, f.IO.ColorErr())
	for _, r := range run.Fmt(f.Dir, files, a.Check) {
		if r.Diags.HasErrors() {
			view.Invalid(r.Name, r.Before, r.Diags)
			failed = true
			continue
		}
		if r.Changed() {
			changed++
			view.Changed(r.Name)
			if a.Diff {
				if err := view.Diff(r.Name, r.Before, r.After); err != nil {
					view.Failed(err)
					failed = true
				}
			}
		}
		if r.Err != nil {
			view.Failed(r.Err)
			failed = true
		}
	}
	if failed || (a.Check && changed > 0) {
		return silentExit(ExitError)
	}
	return nil
}

// fmtStdin formats standard input to standard output (with --diff, the
// diff; with --check, nothing).
func fmtStdin(f *Factory, opts *arguments.Fmt) error {
	src, err := io.ReadAll(f.IO.In)
	if err != nil {
		return fmt.Errorf("fmt: reading standard input: %w", err)
	}
	out, diags := run.FormatSource(src, "<stdin>")
	view := views.NewFmt(f.IO.Out, f.IO.ErrOut, f.IO.ColorErr())
	if diags.HasErrors() {
		view.Invalid("<stdin>", src, diags)
		return silentExit(ExitError)
	}
	switch {
	case opts.Diff:
		if err := view.Diff("<stdin>", src, out); err != nil {
			return err
		}
	case !opts.Check:
		if err := view.Formatted(out); err != nil {
			return err
		}
	}
	if opts.Check && !bytes.Equal(src, out) {
		return silentExit(ExitError)
	}
	return nil
}
