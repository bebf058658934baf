package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run/exportrec"
	"github.com/leadsync/leadsync/internal/state"
)

// ExportView shows the files an export step wrote.
type ExportView interface {
	Exports(cfg *config.Config, written []export.Written)
}

// exportLog is the working copy's record of the spreadsheets it wrote
// (exportrec.Path in the configuration folder). It is read once
// when an operation starts, for the plan, and updated after the files are
// written. A record that cannot be read counts as none: every export is
// then written again, and warn says so once.
type exportLog struct {
	cfg  *config.Config
	path string
	read *exportrec.Records
	// updates are the records to write, by export address in the
	// workspace in use: a nil record removes one.
	updates map[string]*exportrec.Record
	// written are the files this operation wrote (sameFile keys): every
	// other record that names one is dropped, as those files no longer
	// hold what it says.
	written map[string]bool
	warn    func(string)
}

func openExportLog(cfg *config.Config, warn func(string)) *exportLog {
	l := &exportLog{cfg: cfg, path: filepath.Join(cfg.Dir, filepath.FromSlash(exportrec.Path)),
		updates: map[string]*exportrec.Record{}, written: map[string]bool{}, warn: warn}
	recs, err := exportrec.Read(l.path)
	if err != nil {
		reason := err.Error()
		var re *exportrec.Error
		if errors.As(err, &re) {
			reason = re.Reason
		}
		l.warnf("%s cannot be read (%s): there is no record of the exports written, so every export will be written again", exportrec.Path, reason)
		recs = &exportrec.Records{Exports: map[string]*exportrec.Record{}}
	}
	l.read = recs
	return l
}

func (l *exportLog) warnf(format string, args ...any) {
	if l.warn != nil {
		l.warn(fmt.Sprintf(format, args...))
	}
}

// key is the record key of the export at addr in the workspace in use.
func (l *exportLog) key(addr string) string {
	return exportrec.Key(l.cfg.Workspace, addr)
}

// lookup is plan.Options.ExportRecord: the record of the export at addr
// in the workspace in use.
func (l *exportLog) lookup(addr string) *plan.ExportRecord {
	r := l.read.Exports[l.key(addr)]
	if r == nil {
		return nil
	}
	return &plan.ExportRecord{ConfigDigest: r.ConfigDigest, From: r.From}
}

// fileKey is how the record's file f (relative to the configuration
// folder unless absolute) is compared with another: cleaned, and without
// case, as the configuration's check of colliding export files does (a
// case-insensitive file system writes both names into one file).
func (l *exportLog) fileKey(f string) string {
	p := filepath.FromSlash(f)
	if !filepath.IsAbs(p) && l.cfg.Dir != "" {
		p = filepath.Join(l.cfg.Dir, p)
	}
	return strings.ToLower(filepath.Clean(p))
}

// save writes the record: the file as it is now (another command may
// have written it meanwhile), with this operation's updates, without any
// other record that names a file this operation wrote (the same path in
// another workspace: that file now holds this workspace's data), and
// without this workspace's exports the configuration no longer has. A
// failure is a warning: the spreadsheets are written, and the next plan
// writes them again.
func (l *exportLog) save() {
	recs, err := exportrec.Read(l.path)
	if err != nil {
		recs = &exportrec.Records{Exports: map[string]*exportrec.Record{}}
	}
	mine := map[string]bool{}
	for addr, rec := range l.updates {
		k := l.key(addr)
		if rec == nil {
			delete(recs.Exports, k)
		} else {
			recs.Exports[k] = rec
			mine[k] = true
		}
	}
	if len(l.written) > 0 {
		for k, rec := range recs.Exports {
			if mine[k] {
				continue
			}
			for _, f := range rec.Files {
				if l.written[l.fileKey(f)] {
					delete(recs.Exports, k)
					break
				}
			}
		}
	}
	known := map[string]bool{}
	for _, x := range l.cfg.Exports {
		known[x.Address] = true
	}
	for k := range recs.Exports {
		// Only this workspace's: another workspace's configuration may
		// have other instances (for_each on leadsync.workspace).
		if _, addr := exportrec.SplitKey(k); l.key(addr) == k && !known[addr] {
			delete(recs.Exports, k)
		}
	}
	if err := exportrec.Write(l.path, recs); err != nil {
		l.warnf("cannot record the exports written in %s (%v): the next plan will write them again", exportrec.Path, err)
	}
}

// writeExports writes the exports xs of cfg from b, in order, stopping at
// the first that fails, and records each one written whole as written from
// b's data mark and the configuration's digest of it; the one that failed
// loses its record (some of its files may be new, some old). It returns
// every file written.
func writeExports(cfg *config.Config, xs []*config.Export, b *state.Base, opts export.Options, now func() time.Time, log *exportLog) ([]export.Written, error) {
	mark := b.Records.DataMarkIn(cfg.Workspace)
	var all []export.Written
	defer log.save()
	for _, x := range xs {
		o := opts
		if r := log.read.Exports[log.key(x.Address)]; r != nil {
			at := r.WrittenAt
			o.LastWritten = &at // the Summary's "new since the last file"
		}
		w, err := export.Write(cfg, x, b, o)
		all = append(all, w...)
		for _, f := range w {
			log.written[log.fileKey(relToConfig(cfg.Dir, f.Path))] = true
		}
		if err != nil {
			log.updates[x.Address] = nil
			return all, err
		}
		files := make([]string, 0, len(w))
		for _, f := range w {
			files = append(files, relToConfig(cfg.Dir, f.Path))
		}
		log.updates[x.Address] = &exportrec.Record{Files: files, ConfigDigest: cfg.ExportDigest(x), From: mark, WrittenAt: now().UTC()}
	}
	return all, nil
}

// relToConfig is path relative to the configuration folder dir, with
// forward slashes, when it is inside it; else path itself.
func relToConfig(dir, path string) string {
	if dir == "" {
		return filepath.ToSlash(path)
	}
	if rel, err := filepath.Rel(dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}

// plannedExports are the exports of cfg that p writes, in declaration
// order.
func plannedExports(cfg *config.Config, p *plan.Plan) []*config.Export {
	var out []*config.Export
	for _, x := range cfg.Exports {
		if c := p.Change(x.Address); c != nil && c.Kind == kind.Export && c.Action == plan.Write {
			out = append(out, x)
		}
	}
	return out
}

// changesState reports whether applying p changes the state: any change
// but the writing of a spreadsheet.
func changesState(p *plan.Plan) bool {
	for _, c := range p.Changes {
		if c.Action != plan.None && c.Kind != kind.Export {
			return true
		}
	}
	return false
}

// noCalls is the journal of an apply whose plan only writes spreadsheets:
// it makes no call and changes no state, so nothing is recorded (and
// nothing committed). An event to record would be a bug: it stops the run.
type noCalls struct{}

func (noCalls) Append(e *state.Event) error {
	return fmt.Errorf("internal error: the plan writes only spreadsheets, but the run was to record a %s event; nothing was recorded", e.Kind)
}
