package config

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// marker is an expected diagnostic written in a fixture as a comment on the
// offending line: "# ERROR: <text>" or "# WARNING: <text>". The text must
// appear in the diagnostic's "summary: detail".
type marker struct {
	file     string
	line     int
	severity hcl.DiagnosticSeverity
	text     string
}

var markerRE = regexp.MustCompile(`#\s*(ERROR|WARNING):\s*(.+?)\s*$`)

func readMarkers(t *testing.T, dir string) []marker {
	t.Helper()
	var out []marker
	// A fixture may hold module folders: their files' markers are named by
	// the path from the fixture's folder, as diagnostics name them.
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".hcl") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			m := markerRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			sev := hcl.DiagError
			if m[1] == "WARNING" {
				sev = hcl.DiagWarning
			}
			out = append(out, marker{filepath.ToSlash(rel), line, sev, m[2]})
		}
		f.Close()
	}
	// errors.txt lists expected errors that have no place in a file.
	if b, err := os.ReadFile(filepath.Join(dir, "errors.txt")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			out = append(out, marker{"", 0, hcl.DiagError, l})
		}
	}
	return out
}

// TestInvalidFixtures loads every configuration under testdata/invalid (and
// testdata/warnings) and checks that it gives exactly the diagnostics its
// markers announce, each at the marked file and line. A fixture's module
// folders are read with it, and their markers count too.
func TestInvalidFixtures(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/invalid/*")
	if err != nil || len(dirs) < 40 {
		t.Fatalf("want at least 40 invalid fixtures, found %d (%v)", len(dirs), err)
	}
	// Fixtures in testdata/warnings are valid but draw warnings.
	warnings, _ := filepath.Glob("../../testdata/warnings/*")
	dirs = append(dirs, warnings...)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			markers := readMarkers(t, dir)
			if len(markers) == 0 {
				t.Fatal("fixture has no # ERROR: or # WARNING: marker")
			}
			cfg, diags := Load(LoadOptions{Dir: dir})
			if cfg == nil {
				t.Fatal("Load returned a nil Config")
			}
			if !diags.HasErrors() && hasErrorMarker(markers) {
				t.Errorf("no errors; want %v", markers)
			}
			used := make([]bool, len(markers))
		diag:
			for _, d := range diags {
				file, line := "", 0
				if d.Subject != nil {
					file, line = d.Subject.Filename, d.Subject.Start.Line
				}
				text := d.Summary + ": " + d.Detail
				for i, m := range markers {
					if !used[i] && m.severity == d.Severity && m.file == file && m.line == line && strings.Contains(text, m.text) {
						used[i] = true
						continue diag
					}
				}
				t.Errorf("unexpected diagnostic at %s:%d: %s", file, line, text)
			}
			for i, m := range markers {
				if !used[i] {
					t.Errorf("missing diagnostic at %s:%d: %q", m.file, m.line, m.text)
				}
			}
		})
	}
}

func hasErrorMarker(ms []marker) bool {
	for _, m := range ms {
		if m.severity == hcl.DiagError {
			return true
		}
	}
	return false
}
