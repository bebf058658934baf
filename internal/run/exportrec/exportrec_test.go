package exportrec

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

func TestExportRecordsRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	path := filepath.Join(dir, "exports.json")

	r, err := Read(path)
	if err != nil || len(r.Exports) != 0 {
		t.Fatalf("missing file: %+v, %v; want an empty record", r, err)
	}

	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	r.Exports["export.marketing"] = &Record{
		Files:        []string{"out/leads.xlsx"},
		ConfigDigest: "abc",
		From:         state.DataMark{Lineage: "l-1", Serial: 7, Journal: &state.JournalMark{ID: "j", Seq: 3}},
		WrittenAt:    at,
	}
	if err := Write(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
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
			r, err := Read(path)
			var re *Error
			if !errors.As(err, &re) || r != nil || re.Path != path {
				t.Fatalf("got %+v, %v; want an *Error naming %s", r, err, path)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

// TestExportRecordKey: the default workspace keeps the bare address (the
// records written before workspaces had their own still apply); another
// workspace prefixes its name, and a key splits back into both, also for
// an instance key holding a '/'.
func TestKey(t *testing.T) {
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
		if got := Key(c.ws, c.addr); got != c.key {
			t.Errorf("Key(%q, %q) = %q; want %q", c.ws, c.addr, got, c.key)
		}
		if ws, addr := SplitKey(c.key); ws != c.splitWS || addr != c.addr {
			t.Errorf("SplitKey(%q) = %q, %q; want %q, %q", c.key, ws, addr, c.splitWS, c.addr)
		}
	}
}
