package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
)

// Options are the choices of one export run.
type Options struct {
	// Now is the clock, for "written at" and the document properties;
	// nil means time.Now.
	Now func() time.Time
	// BOM starts CSV files with a UTF-8 byte order mark, so that Excel reads
	// them as UTF-8 when opened by double-click. XLSX ignores it.
	BOM bool
	// Stats are figures of the apply run that precedes the export, shown in
	// the Summary; nil when the export runs from state alone.
	Stats *RunStats
	// LastWritten is when this export's files were written before (the
	// working copy's record of the exports); nil when there is no record:
	// the Summary then counts nobody as new since the last file.
	LastWritten *time.Time
	// Stop, when set and done (a second interrupt), stops the writer
	// between batches of rows and before each rename: its temporary files
	// are removed, the files already in place stay, and Write returns
	// ErrStopped.
	Stop context.Context
}

// RunStats are figures of an apply run for the Summary sheet.
type RunStats struct {
	// CreditsSpent by the enrichments of this run: credits the service
	// charged (enrichments that succeeded).
	CreditsSpent int
	// CreditsUnknown of this run: enrichments whose outcome is unknown,
	// which may have been charged.
	CreditsUnknown int
	// RemainingRequests this month as last reported by the service during
	// the run; nil when unknown (the Summary then uses the state's figure).
	RemainingRequests *int
}

// Written is one file an export wrote.
type Written struct {
	Path   string // as opened: the export path joined to the config directory
	Export string // address of the export block, e.g. export.marketing
	// Sheets is the number of data worksheets in the file (the Summary not
	// counted); 0 for a CSV summary file.
	Sheets int
	// Rows is the number of data rows (header rows not counted).
	Rows int
	// Summary is true for the <base>.summary.csv file of a CSV export.
	Summary bool
	// Warnings say what had to be adapted to the format's limits (cells cut
	// at 32,767 characters, sheets continued past 1,048,576 rows, renamed
	// sheets) and which sources have not run yet.
	Warnings []string
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Write writes one export in its format (exp.Format, or else the one its
// path's extension chooses): an XLSX workbook, or one CSV file per sheet
// plus a summary file. Nothing is fetched; everything comes from b, whose
// people are read a page at a time: a sheet's rows are kept as person IDs
// until the writer fills them. Each file is written under a temporary
// name in its folder and renamed into place, so a failure leaves the
// previous file as it was.
func Write(cfg *config.Config, exp *config.Export, b *state.Base, opts Options) ([]Written, error) {
	if b == nil {
		b = state.NewBase(&state.State{})
	}
	w, err := writerFor(exp)
	if err != nil {
		return nil, err
	}
	if err := opts.halted(); err != nil {
		return nil, fmt.Errorf("%s: %w", exp.Address, err)
	}
	job := newJob(cfg, exp, b, opts)
	defer job.stopReads()
	missing, err := job.collect()
	if err == nil {
		err = opts.halted() // the rows' people read, before they are written
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", exp.Address, err)
	}
	// Before the first apply nothing has run: that is no news, and the
	// Summary still marks every source. After it, a source that has not run
	// (a failed call, a new block) is worth one line.
	if len(missing) > 0 && len(job.st.Searches)+len(job.st.Profiles) > 0 {
		job.warnf("not run yet, so they add no rows: %s", someOf(missing))
	}
	out, err := w.write(job)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", exp.Address, err)
	}
	return out, nil
}

// ErrStopped is the error of a Write stopped by Options.Stop.
var ErrStopped = errors.New("the spreadsheets' writing was stopped")

// halted returns ErrStopped once Options.Stop is done, else nil.
func (o Options) halted() error {
	if o.Stop != nil && o.Stop.Err() != nil {
		return ErrStopped
	}
	return nil
}

// newJob is the job of writing exp from b.
func newJob(cfg *config.Config, exp *config.Export, b *state.Base, opts Options) *job {
	return &job{
		cfg:     cfg,
		exp:     exp,
		st:      b.Records,
		base:    b,
		opts:    opts,
		now:     opts.now().UTC(),
		path:    exportPath(cfg.Dir, exp.Path),
		ex:      newExcluder(cfg, b),
		facts:   newExportFacts(),
		members: map[string]struct{}{},
	}
}

// collect collects the rows and table of each sheet of the export, and
// returns the sources that have not run yet, each once.
func (j *job) collect() (missing []string, err error) {
	seen := map[string]bool{}
	for _, sh := range j.exp.Sheets {
		if sh.Changes != nil {
			changes, rows, err := j.collectChanges(sh)
			if err != nil {
				return nil, err
			}
			j.sheets = append(j.sheets, sheetJob{conf: sh, rows: rows, table: j.haltable(j.changesTable(sh, changes))})
			continue
		}
		rows, err := j.collectRows(sh)
		if err != nil {
			return nil, err
		}
		t, err := j.buildTable(sh, rows)
		if err != nil {
			return nil, err
		}
		j.sheets = append(j.sheets, sheetJob{conf: sh, rows: rows, table: j.haltable(t)})
		for _, m := range rows.missing {
			if !seen[m] {
				seen[m] = true
				missing = append(missing, m)
			}
		}
	}
	if err := j.countSources(); err != nil {
		return nil, err
	}
	// What was kept to collect the rows goes before they are written.
	j.members = nil
	return missing, j.countQuotaCalls()
}

// countSources counts, for the Summary, the people of the export each of
// its sources found (a person found by two sources counts under each).
func (j *job) countSources() error {
	j.bySource = map[string]int{}
	defer func() { j.leads = nil }()
	searches, profiles, imports := j.sources()
	seen := map[string]bool{}
	for _, g := range []struct {
		k    kind.Kind
		srcs []string
	}{{kind.Search, searches}, {kind.Profile, profiles}, {kind.Import, imports}} {
		for i, src := range g.srcs {
			if err := j.readLeadsAhead(g.srcs, i); err != nil {
				return err
			}
			ids, _, err := j.sourceIDs(g.k, src)
			if err != nil {
				return err
			}
			j.bySource[src] = countIn(ids, j.members, seen)
			if len(seen) > 1024 {
				seen = map[string]bool{} // clear costs what the map grew to
			}
		}
	}
	return nil
}

// exportPath joins a configured export path to the configuration directory.
func exportPath(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// job is one export being written.
type job struct {
	cfg *config.Config
	exp *config.Export
	// st is the state's records (base.Records: no people); base reads
	// the people.
	st       *state.State
	base     *state.Base
	opts     Options
	now      time.Time
	path     string
	sheets   []sheetJob
	warnings []string
	// names are the Summary's names of the sources that set a label
	// (sourceName), made on first use.
	names map[string]string
	ex    *excluder
	// facts are the Summary's counts over the people of the sheets,
	// gathered as their rows are collected.
	facts exportFacts
	// members are the people of the sheets, by ID, while the rows are
	// collected.
	members map[string]struct{}
	// bySource counts the people of the export each source found.
	bySource map[string]int
	// quotaCalls counts the calls recorded since the quota was last
	// read (countQuotaCalls).
	quotaCalls int
	// leads are lead lists read ahead, by search address
	// (readLeadsAhead).
	leads map[string][]string
	// wheres are what each sheet's where gave, by the values it reads
	// (matchPerson).
	wheres map[*config.Sheet]*config.WhereMemo[bool]
}

type sheetJob struct {
	conf  *config.Sheet
	rows  sheetRows
	table *table
	// where says where the sheet went (worksheet names or a file name), for
	// the Summary.
	where string
}

func (j *job) warnf(format string, args ...any) {
	j.warnings = append(j.warnings, fmt.Sprintf(format, args...))
}

// atomicFile is a file being written under a temporary name next to its
// final path.
type atomicFile struct {
	*os.File
	path string
	done bool
}

// createAtomic creates the folders of path and a temporary file beside it.
func createAtomic(path string) (*atomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, folderError(path, dir, err)
	}
	safefile.RemoveDeadTemps(path, "tmp")
	f, err := os.CreateTemp(dir, safefile.TempPattern(path, "tmp"))
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &atomicFile{File: f, path: path}, nil
}

// folderError explains why the folder dir of path could not be made, naming
// the file that stands where a folder should be when that is the cause.
func folderError(path, dir string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
		for d := dir; ; d = filepath.Dir(d) {
			if fi, serr := os.Stat(d); serr == nil && !fi.IsDir() {
				return fmt.Errorf("cannot write %s: %s is a file, not a folder; move that file away or change the export's path", path, d)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("cannot write %s: no permission to create the folder %s; make its parent writable or change the export's path", path, dir)
	}
	return fmt.Errorf("creating folder for %s: %w", path, err)
}

// finish syncs and closes the temporary file, ready for rename.
func (a *atomicFile) finish() error {
	if err := a.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	// CreateTemp makes the file 0600; a spreadsheet is meant to be shared
	// like any other output, so keep the mode of the file it replaces or
	// use the ordinary 0644.
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(a.path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("writing %s: it is a folder", a.path)
		}
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(a.Name(), mode); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	return nil
}

// testHookBeforeRename, when set by a test, runs before each rename and can
// make it fail.
var testHookBeforeRename func(path string) error

// HoldRows, when set, is called as a writer fills the first row of each
// sheet, with the writer's stop (Options.Stop, nil when none). A test of
// the real process (e2e's runLeadsync) holds the writer there, in the
// middle of its files, until it has sent an interrupt. leadsync never
// sets it.
var HoldRows func(stop context.Context)

// haltable gives t the job's stop, checked between batches of rows, and
// HoldRows when set.
func (j *job) haltable(t *table) *table {
	t.halted = j.opts.halted
	if hold := HoldRows; hold != nil {
		fill, once := t.fill, new(sync.Once)
		t.fill = func(i int, row []cellValue) {
			once.Do(func() { hold(j.opts.Stop) })
			fill(i, row)
		}
	}
	return t
}

// rename moves the finished file into place, unless the job is stopped.
func (j *job) rename(a *atomicFile) error {
	if err := j.opts.halted(); err != nil {
		return err
	}
	return a.rename()
}

// rename moves the finished file into place.
func (a *atomicFile) rename() error {
	if testHookBeforeRename != nil {
		if err := testHookBeforeRename(a.path); err != nil {
			return fmt.Errorf("writing %s: %w", a.path, err)
		}
	}
	if err := os.Rename(a.Name(), a.path); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	a.done = true
	return nil
}

// abort removes the temporary file unless it was renamed.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	_ = a.Close()
	_ = os.Remove(a.Name())
}
