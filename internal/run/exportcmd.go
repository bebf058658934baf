package run

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ExportOptions are the inputs of one export.
type ExportOptions struct {
	Config *config.Config
	// BOM starts CSV files with a UTF-8 byte order mark.
	BOM bool
	// NoState is called, before anything is written, when no state was
	// ever written: the spreadsheets will have headers only.
	NoState func()
	// Warn shows a warning that stops nothing (one line): the working
	// copy's export record could not be read or written. Nil drops them.
	Warn func(string)
}

// Export writes every export of the configuration from the state, without
// a lock (it only reads the state) and without a call, and records each
// one written in the working copy's export record. It returns the files
// written, also those written before a failure.
//
// The state is opened as a Base (backend.OpenBase): the records are read,
// and the people a page at a time as the sheets' rows are collected and
// written, never all at once.
func Export(d Deps, opts ExportOptions) ([]export.Written, error) {
	b, err := backend.OpenBase(d.Backend)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if opts.NoState != nil && !d.exists(b.Records) {
		opts.NoState()
	}
	cfg := opts.Config
	if len(cfg.Exports) == 0 {
		return nil, nil
	}
	log := openExportLog(cfg, opts.Warn)
	return writeExports(cfg, cfg.Exports, b, export.Options{Now: d.clock(), BOM: opts.BOM}, d.clock(), log)
}
