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
// inside dir, by its text and then with symbolic links resolved: out/ as a
// link to /tmp is outside. The file itself may be a link (it is replaced by
// a rename, never written through); the folders it is written into count.
func insideDir(dir, path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	absDir, err1 := filepath.Abs(dir)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	if !under(absDir, absPath) {
		return false
	}
	realDir, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return true // no folder yet: nothing to resolve
	}
	return under(realDir, filepath.Join(resolveExisting(filepath.Dir(absPath)), filepath.Base(absPath)))
}

// under reports whether the absolute path p is dir or inside it.
func under(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves the symbolic links of the longest part of the
// absolute path p that exists, and appends the rest unchanged.
func resolveExisting(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
