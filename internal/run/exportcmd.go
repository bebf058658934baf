package run

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
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
func Export(d Deps, opts ExportOptions) ([]export.Written, error) {
	s, err := d.Backend.Load()
	if err != nil {
		return nil, err
	}
	if opts.NoState != nil && !d.exists(s) {
		opts.NoState()
	}
	cfg := opts.Config
	if len(cfg.Exports) == 0 {
		return nil, nil
	}
	log := openExportLog(cfg, opts.Warn)
	return writeExports(cfg, cfg.Exports, s, export.Options{Now: d.clock(), BOM: opts.BOM}, d.clock(), log)
}
