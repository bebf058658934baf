package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/state"
)

// ExportView shows the files an export step wrote.
type ExportView interface {
	Exports(cfg *config.Config, written []export.Written)
}

// WriteExports writes every export of cfg from st, the step that ends an
// apply, and shows what was written through view. With onlyMissing (an
// apply with nothing to do), only when some export file does not exist
// yet. stats are the run's figures for the Summary sheet (nil: none).
func WriteExports(cfg *config.Config, st *state.State, now func() time.Time, stats *export.RunStats, onlyMissing bool, view ExportView) error {
	if len(cfg.Exports) == 0 {
		return nil
	}
	if onlyMissing && !exportMissing(cfg) {
		return nil
	}
	written, err := export.WriteAll(cfg, st, export.Options{Now: now, Stats: stats})
	view.Exports(cfg, written)
	if err != nil {
		return fmt.Errorf("writing the spreadsheets (state is saved; run leadsync export to try again): %w", err)
	}
	return nil
}

// exportMissing reports whether some export file of cfg does not exist.
func exportMissing(cfg *config.Config) bool {
	missing := false
	for _, e := range cfg.Exports {
		data, summary := e.Files()
		for _, p := range append(data, summary) {
			if p == "" {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(cfg.Dir, p)
			}
			if _, err := os.Stat(p); err != nil {
				missing = true
			}
		}
	}
	return missing
}
