package views

import (
	"fmt"
	"io"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
)

// Export is the view of `leadsync export`: the files written.
type Export interface {
	// Written shows the files written from cfg and, in the JSON form, err:
	// why the export stopped (files written before are listed). The human
	// form leaves err to the caller, which prints it as the command's
	// error.
	Written(cfg *config.Config, written []export.Written, err error) error
	// NoState says, in the human form on ErrOut, that there is no state
	// at where yet, so the spreadsheets have headers only.
	NoState(where string)
}

// NewExport returns the JSON or the human view of export: the files on
// Out, their warnings on ErrOut.
func NewExport(s Streams, asJSON bool) Export {
	if asJSON {
		return exportJSON{s.Out}
	}
	return exportHuman{s}
}

var (
	_ Export = exportHuman{}
	_ Export = exportJSON{}
)

type exportHuman struct{ s Streams }

func (v exportHuman) Written(cfg *config.Config, written []export.Written, _ error) error {
	if len(cfg.Exports) == 0 {
		_, err := fmt.Fprintln(v.s.Out, "No export blocks in the configuration: nothing to write.")
		return err
	}
	for _, w := range written {
		if _, err := fmt.Fprintln(v.s.Out, WroteLine(cfg, w)); err != nil {
			return err
		}
	}
	ExportWarnings(v.s.ErrOut, written)
	return nil
}

func (v exportHuman) NoState(where string) {
	fmt.Fprintf(v.s.ErrOut, "Note: no state at %s yet, so the spreadsheets have headers only; run leadsync apply to fetch.\n", where)
}

// ExportJSON is the --json form of export.
type ExportJSON struct {
	FormatVersion string        `json:"format_version"`
	Written       []WrittenJSON `json:"written"`
	Error         string        `json:"error,omitempty"`
}

// WrittenJSON is one file written, in ExportJSON.
type WrittenJSON struct {
	Path     string   `json:"path"`
	Export   string   `json:"export"`
	Sheets   int      `json:"sheets"`
	Rows     int      `json:"rows"`
	Summary  bool     `json:"summary"`
	Warnings []string `json:"warnings"`
}

type exportJSON struct{ w io.Writer }

func (exportJSON) NoState(string) {}

func (v exportJSON) Written(cfg *config.Config, written []export.Written, err error) error {
	out := ExportJSON{FormatVersion: "1"}
	for _, w := range written {
		out.Written = append(out.Written, WrittenJSON{
			Path: RelPath(cfg.Dir, w.Path), Export: w.Export, Sheets: w.Sheets, Rows: w.Rows, Summary: w.Summary, Warnings: w.Warnings,
		})
	}
	if err != nil {
		out.Error = err.Error()
	}
	return writeJSONDoc(v.w, out)
}
