package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newExportCmd(f *Factory) *cobra.Command {
	var fl arguments.ExportFlags
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Rewrite the spreadsheets from state; no calls",
		Long: `Export writes every export block's spreadsheet from what the state already
holds, without a single call to the service: the same files apply writes
after its calls. Each file is written under a temporary name and renamed
into place, so a failure leaves the previous file as it was.

An .xlsx path gets a workbook: a Summary sheet, then one sheet per sheet
block. A .csv path gets one file per sheet: with one sheet block, its rows
go to the path itself; with several, each sheet goes to
<base>-<sheet-slug>.csv. The summary goes to <base>.summary.csv.`,
		Example: `  leadsync export
  leadsync export --bom          # CSV files that Excel opens as UTF-8 by double-click
  leadsync export --json`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseExport, func(_ *cobra.Command, a *arguments.Export) error {
		return runExport(f, a)
	})
	return cmd
}

func runExport(f *Factory, a *arguments.Export) error {
	asJSON := a.View == arguments.ViewJSON
	cfg, diags := loadConfig(f, a.Vars)
	// With --json and errors, Run prints export's schema with the
	// diagnostics on stdout.
	writeDiagnostics(f, cfg, diags)
	if diags.HasErrors() {
		return silentExit(ExitError)
	}
	view := views.NewExport(viewStreams(f), asJSON)
	deps, src, err := runDeps(f, cfg, 0)
	if err != nil {
		if asJSON {
			_ = view.Written(cfg, nil, err)
			return silentExit(ExitError)
		}
		return err
	}
	defer src.close()
	eopts := run.ExportOptions{Config: cfg, BOM: a.BOM, Warn: func(msg string) { warn(f, msg) }}
	if !asJSON {
		eopts.NoState = func() {
			where := src.describe(f)
			if path, ok := backend.FilePath(src.backend); ok {
				where = views.RelPath(cfg.Dir, path)
			}
			view.NoState(where)
		}
	}
	written, err := run.Export(deps, eopts)
	if asJSON {
		if werr := view.Written(cfg, written, err); err == nil {
			return werr
		}
		return silentExit(ExitError)
	}
	if err != nil && len(written) == 0 {
		return err // the state could not be read, or nothing was written
	}
	if werr := view.Written(cfg, written, err); err == nil {
		return werr
	}
	return err
}
