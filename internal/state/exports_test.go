package state

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestExportRecordsRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	path := filepath.Join(dir, "exports.json")

	r, err := ReadExportRecords(path)
	if err != nil || len(r.Exports) != 0 {
		t.Fatalf("missing file: %+v, %v; want an empty record", r, err)
	}

	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r.Exports["export.marketing"] = &ExportRecord{
		Files:        []string{"out/leads.xlsx"},
		ConfigDigest: "abc",
		From:         DataMark{Lineage: "l-1", Serial: 7, Journal: &JournalMark{ID: "j", Seq: 3}},
		WrittenAt:    at,
	}
	if err := WriteExportRecords(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadExportRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := got.Exports["export.marketing"]
	if rec == nil || rec.ConfigDigest != "abc" || !rec.From.Equal(r.Exports["export.marketing"].From) ||
		!rec.WrittenAt.Equal(at) || strings.Join(rec.Files, ",") != "out/leads.xlsx" {
		t.Errorf("read back %+v", rec)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v (%v); want 0600", fi.Mode().Perm(), err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
		t.Errorf("the folder got no .gitignore: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestExportRecordsDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exports.json")
	for name, content := range map[string]string{
		"not json":      "{\"format_version\": 1, \"exports\": {",
		"newer version": `{"format_version": 2, "exports": {}}`,
		"null record":   `{"format_version": 1, "exports": {"export.x": null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := ReadExportRecords(path)
			var re *ExportRecordError
			if !errors.As(err, &re) || r != nil || re.Path != path {
				t.Fatalf("got %+v, %v; want an *ExportRecordError naming %s", r, err, path)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

func TestDataMark(t *testing.T) {
	s := New()
	if m := s.DataMark(); m != (DataMark{}) {
		t.Errorf("a state never written: %+v; want no lineage, serial 0 (its lineage is made up by each load)", m)
	}
	s.Serial = 4
	m := s.DataMark()
	if m.Lineage != s.Lineage || m.Serial != 4 || m.Journal != nil {
		t.Errorf("mark %+v", m)
	}
	same := DataMark{Lineage: s.Lineage, Serial: 4}
	if !m.Equal(same) {
		t.Error("equal marks differ")
	}
	for name, o := range map[string]DataMark{
		"serial":        {Lineage: s.Lineage, Serial: 5},
		"lineage":       {Lineage: "other", Serial: 4},
		"journal added": {Lineage: s.Lineage, Serial: 4, Journal: &JournalMark{ID: "j", Seq: 1}},
	} {
		if m.Equal(o) || o.Equal(m) {
			t.Errorf("%s: %+v equals %+v", name, o, m)
		}
	}
	// A journal replayed on load (an apply killed before its commit) moves
	// the mark without the serial.
	s.Journal = &JournalMark{ID: "j", Seq: 2}
	a := s.DataMark()
	s.Journal.Seq = 3
	if b := s.DataMark(); a.Equal(b) {
		t.Errorf("more journal calls, same mark: %+v %+v", a, b)
	}
}

// TestExportRecordKey: the default workspace keeps the bare address (the
// records written before workspaces had their own still apply); another
// workspace prefixes its name, and a key splits back into both, also for
// an instance key holding a '/'.
func TestExportRecordKey(t *testing.T) {
	for _, c := range []struct {
		ws, addr, key, splitWS string
	}{
		{"", "export.leads", "export.leads", ""},
		{"default", "export.leads", "export.leads", ""},
		{"uk", "export.leads", "uk/export.leads", "uk"},
		{"eu-west.2", `export.x["a/b"]`, `eu-west.2/export.x["a/b"]`, "eu-west.2"},
		{"", `export.x["a/b"]`, `export.x["a/b"]`, ""},
		{"", `export.x["/"]`, `export.x["/"]`, ""},
	} {
		if got := ExportRecordKey(c.ws, c.addr); got != c.key {
			t.Errorf("ExportRecordKey(%q, %q) = %q; want %q", c.ws, c.addr, got, c.key)
		}
		if ws, addr := SplitExportRecordKey(c.key); ws != c.splitWS || addr != c.addr {
			t.Errorf("SplitExportRecordKey(%q) = %q, %q; want %q, %q", c.key, ws, addr, c.splitWS, c.addr)
		}
	}
}
