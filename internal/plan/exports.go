package plan

import (
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/kind"
)

// exports plans the export files. Each is written, for the first reason
// that holds: a file is missing; the plan changes the state; the working
// copy has no record of writing it; its configuration (ExportDigest)
// changed since; the state it was written from is not the state now
// (forget, state rm, a teammate's apply on a shared state). Otherwise it
// is up to date.
func (b *builder) exports() {
	changes := false
	for _, c := range b.p.Changes {
		if c.Action != None {
			changes = true
		}
	}
	exists := b.opts.FileExists
	if exists == nil {
		exists = func(p string) bool { _, err := os.Stat(p); return err == nil }
	}
	record := b.opts.ExportRecord
	if record == nil {
		record = func(string) *ExportRecord { return nil }
	}
	mark := b.st.DataMarkIn(b.cfg.Workspace)
	for _, x := range b.cfg.Exports {
		if !b.selected(x.Address) {
			continue
		}
		missing := ""
		data, summary := x.Files()
		if summary != "" {
			data = append(data, summary)
		}
		for _, f := range data {
			path := f
			if !filepath.IsAbs(path) && b.cfg.Dir != "" {
				path = filepath.Join(b.cfg.Dir, path)
			}
			if !exists(path) {
				missing = f
				break
			}
		}
		c := &Change{Address: x.Address, Kind: kind.Export, Action: Write, Path: x.Path}
		rec := record(x.Address)
		switch {
		case missing != "":
			c.Reason, c.Detail = ReasonFileMissing, missing+" (missing)"
		case changes:
			c.Reason, c.Detail = ReasonStateChanges, x.Path
		case rec == nil:
			c.Reason, c.Detail = ReasonNoRecord, "no record of the last write of "+x.Path
		case rec.ConfigDigest == "" || rec.ConfigDigest != b.cfg.ExportDigest(x):
			c.Reason, c.Detail = ReasonConfigChanged, "configuration changed since "+x.Path+" was written"
		case !rec.From.Equal(mark):
			c.Reason, c.Detail = ReasonStateNewer, "state changed since "+x.Path+" was written"
		default:
			c.Action, c.Reason, c.Detail = None, ReasonUpToDate, x.Path
		}
		if c.Action == Write {
			if c.Continued = b.continuedSheets(x); c.Continued != nil {
				c.Detail += "; " + continuedText(c.Continued)
			}
		}
		b.add(c)
	}
}
