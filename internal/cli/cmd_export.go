package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

// exportOptions are the inputs of `leadsync export`.
type exportOptions struct {
	vars varFlags
	bom  bool
	json bool
}

func newExportCmd(f *Factory) *cobra.Command {
	opts := &exportOptions{}
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.bom, "bom", false, "start CSV files with a UTF-8 byte order mark (for Excel)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was written as one JSON object")
	opts.vars.register(cmd)
	return cmd
}

func runExport(f *Factory, opts *exportOptions) error {
	cfg, diags := loadConfig(f, &opts.vars)
	// With --json and errors, Run prints export's schema with the
	// diagnostics on stdout.
	writeDiagnostics(f, cfg, diags)
	if diags.HasErrors() {
		return silentExit(ExitError)
	}
	deps, src, err := runDeps(f, cfg)
	if err != nil {
		if opts.json {
			writeExportJSON(f, cfg, nil, err)
			return silentExit(ExitError)
		}
		return err
	}
	defer src.close()
	eopts := run.ExportOptions{Config: cfg, BOM: opts.bom, Warn: func(msg string) { warn(f, msg) }}
	if !opts.json {
		eopts.NoState = func() {
			where := src.describe(f)
			if path, ok := backend.FilePath(src.backend); ok {
				where = views.RelPath(cfg.Dir, path)
			}
			fmt.Fprintf(f.IO.ErrOut, "Note: no state at %s yet, so the spreadsheets have headers only; run leadsync apply to fetch.\n", where)
		}
	}
	written, err := run.Export(deps, eopts)
	if opts.json {
		writeExportJSON(f, cfg, written, err)
		if err != nil {
			return silentExit(ExitError)
		}
		return nil
	}
	if err != nil && len(written) == 0 {
		return err // the state could not be read, or nothing was written
	}
	if len(cfg.Exports) == 0 {
		fmt.Fprintln(f.IO.Out, "No export blocks in the configuration: nothing to write.")
		return nil
	}
	for _, w := range written {
		fmt.Fprintln(f.IO.Out, views.WroteLine(cfg, w))
	}
	views.ExportWarnings(f.IO.ErrOut, written)
	return err
}

// exportJSON is the --json output of `leadsync export`.
type exportJSON struct {
	FormatVersion string        `json:"format_version"`
	Written       []writtenJSON `json:"written"`
	Error         string        `json:"error,omitempty"`
}

// writtenJSON is one written file in exportJSON.
type writtenJSON struct {
	Path     string   `json:"path"`
	Export   string   `json:"export"`
	Sheets   int      `json:"sheets"`
	Rows     int      `json:"rows"`
	Summary  bool     `json:"summary"`
	Warnings []string `json:"warnings"`
}

func writeExportJSON(f *Factory, cfg *config.Config, written []export.Written, err error) {
	out := exportJSON{FormatVersion: "1", Written: []writtenJSON{}}
	for _, w := range written {
		warn := w.Warnings
		if warn == nil {
			warn = []string{}
		}
		out.Written = append(out.Written, writtenJSON{
			Path: views.RelPath(cfg.Dir, w.Path), Export: w.Export, Sheets: w.Sheets, Rows: w.Rows, Summary: w.Summary, Warnings: warn,
		})
	}
	if err != nil {
		out.Error = err.Error()
	}
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}
