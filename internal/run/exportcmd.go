package run

import (
	"math"
	"runtime/debug"

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
	if b.Stored() {
		defer exportGC()()
	}
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

// exportGCPercent is the collector's GOGC while an export reads a stored
// Base, unless it is lower already; exportMemoryLimit its soft memory
// limit, unless one is set (GOMEMLIMIT).
const (
	exportGCPercent   = 50
	exportMemoryLimit = 160 << 20
)

// exportGC lowers GOGC to exportGCPercent, and sets a soft memory limit,
// until the function it returns is called. Why: an export from the store
// holds its rows' IDs (about 70 bytes a row while they are collected, 18
// after: export's idList) and passes the people through a page at a
// time (the next page read ahead), so that nearly all it allocates is
// garbage at once. At the default 100 the heap grows
// to twice what it holds before a collection: 260-270 MB of peak RSS for
// a sheet of 1,000,000 rows, 207-213 MB at 50, 185 MB with the limit,
// for a tenth more CPU (docs/performance.md). Past about 1,800,000 rows
// what it holds nears the limit and the collector runs more often:
// slower, not failing (Go caps the collector at half the CPU).
func exportGC() (restore func()) {
	old := debug.SetGCPercent(exportGCPercent)
	if old >= 0 && old < exportGCPercent {
		debug.SetGCPercent(old)
	}
	oldLimit := debug.SetMemoryLimit(-1)
	if oldLimit == math.MaxInt64 {
		debug.SetMemoryLimit(exportMemoryLimit)
	}
	return func() {
		debug.SetGCPercent(old)
		debug.SetMemoryLimit(oldLimit)
	}
}
