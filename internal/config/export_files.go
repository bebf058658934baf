package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// decodeAllowOutside reads an export's allow_outside.
func (l *loader) decodeAllowOutside(x *Export, a *hcl.Attribute) {
	if a == nil {
		return
	}
	if v, astate := l.boolAttr(a, l.base, scope{}); astate == ok {
		x.AllowOutside = v
	}
}

// checkExportFiles checks the files every export writes, derived names
// included (a CSV export of several sheets writes <base>-<sheet>.csv each,
// and <base>.summary.csv):
//
//   - no file is written by two exports (or twice by one): the second would
//     overwrite the first without a word. File systems that ignore case
//     are common, so names are compared ignoring case;
//   - no file is outside the configuration folder unless the export says
//     allow_outside = true, as file() reads only inside it: a path such as
//     "../../.bashrc.csv" from a shared configuration must not be written
//     by surprise.
func (l *loader) checkExportFiles() {
	dir := l.cfg.Dir
	if dir == "" {
		dir = "."
	}
	type owner struct {
		x    *Export
		what string
	}
	written := map[string]owner{}
	for _, x := range l.cfg.Exports {
		if x.Path == "" {
			continue // already reported
		}
		data, summary := x.Files()
		files := make([]string, 0, len(data)+1)
		whats := make([]string, 0, len(data)+1)
		for i, f := range data {
			files = append(files, f)
			what := "its file"
			if len(data) > 1 && i < len(x.Sheets) {
				what = fmt.Sprintf("the file of its sheet %q", x.Sheets[i].Name)
			}
			whats = append(whats, what)
		}
		if summary != "" {
			files, whats = append(files, summary), append(whats, "its summary file")
		}
		outside := ""
		for i, f := range files {
			if !x.AllowOutside && outside == "" && !insideDir(dir, f) {
				outside = f
			}
			key := strings.ToLower(filepath.Clean(f))
			if prev, dup := written[key]; dup {
				l.errorf(x.PathRange.Ptr(), "Export files collide",
					"%s writes %q (%s), which %s also writes (%s): one would overwrite the other. Choose another path, or other sheet names.",
					x.Address, f, whats[i], prev.x.Address, prev.what)
				continue
			}
			written[key] = owner{x, whats[i]}
		}
		if outside != "" {
			l.errorf(x.PathRange.Ptr(), "Export path outside the configuration folder",
				"%s would write %q, outside the configuration folder. Exports write inside it unless the export says so: add allow_outside = true to the export block if this is intended.",
				x.Address, outside)
		}
	}
}

// insideDir reports whether path (relative to dir unless absolute) stays
// inside dir.
func insideDir(dir, path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(absDir, absPath)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
