package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
)

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const messy, tidy = "search \"a\" {\nkeywords=\"CTO\"\n  max_results = 5\n}\n", "search \"a\" {\n  keywords    = \"CTO\"\n  max_results = 5\n}\n"
	write("a.leads.hcl", messy, 0o600)
	write("b.leads.hcl", tidy, 0o644)
	write("c.leads.hcl", "search \"a\" {\n", 0o644)
	write("vars.auto.leadvars.hcl", "cities=[\"Berlin\"]\n", 0o644)
	write("notes.txt", "not mine", 0o644)
	write("sub/d.leads.hcl", messy, 0o644)
	write(".leadsync/e.leads.hcl", messy, 0o644)

	files, err := FmtFiles(dir, []string{"."}, false)
	if err != nil {
		t.Fatal(err)
	}
	names := func(rs []FmtFile) (changed, failed []string) {
		for _, r := range rs {
			if r.Changed() {
				changed = append(changed, r.Name)
			}
			if r.Diags.HasErrors() || r.Err != nil {
				failed = append(failed, r.Name)
			}
		}
		return changed, failed
	}
	changed, failed := names(Fmt(dir, files, true))
	if want := []string{"a.leads.hcl", "vars.auto.leadvars.hcl"}; !reflect.DeepEqual(changed, want) || !reflect.DeepEqual(failed, []string{"c.leads.hcl"}) {
		t.Errorf("--check: changed %v (want %v), failed %v", changed, want, failed)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.leads.hcl")); string(b) != messy {
		t.Error("--check wrote a file")
	}

	files, err = FmtFiles(dir, []string{"."}, true)
	if err != nil {
		t.Fatal(err)
	}
	changed, _ = names(Fmt(dir, files, false))
	if want := []string{"a.leads.hcl", filepath.Join("sub", "d.leads.hcl"), "vars.auto.leadvars.hcl"}; !reflect.DeepEqual(changed, want) {
		t.Errorf("--recursive: changed %v, want %v (hidden folders left out)", changed, want)
	}
	fi, err := os.Stat(filepath.Join(dir, "a.leads.hcl"))
	if b, _ := os.ReadFile(filepath.Join(dir, "a.leads.hcl")); err != nil || string(b) != tidy || fi.Mode().Perm() != 0o600 {
		t.Errorf("a.leads.hcl: %q, mode %v, %v", b, fi.Mode(), err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c.leads.hcl")); string(b) != "search \"a\" {\n" {
		t.Error("a file with a syntax error was rewritten")
	}

	if _, err := FmtFiles(dir, []string{"b.leads.hcl", "missing.leads.hcl"}, false); err == nil || err.Error() != "fmt: missing.leads.hcl: no such file or directory" {
		t.Errorf("a missing path: %v", err)
	}
}

// fieldsOnly is a service that answers the field list only.
type fieldsOnly struct {
	api.Service
	fields []api.Field
	err    error
}

func (s fieldsOnly) Fields(context.Context) ([]api.Field, error) { return s.fields, s.err }

func TestRefreshFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "fields.json")
	refused := &api.Error{Status: 403, Message: "invalid API key"}
	if _, _, err := RefreshFields(context.Background(), fieldsOnly{err: refused}, path, t0); !errors.As(err, new(*FieldsError)) || !errors.Is(err, refused) {
		t.Fatalf("a failed call: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a failed call wrote the cache: %v", err)
	}
	fields := []api.Field{{FieldName: "City", SearchParameter: "city", Type: api.FieldText},
		{FieldName: "Mood", SearchParameter: "moodFilter", Type: api.FieldArray, PossibleValues: []string{"Happy"}}}
	fresh, n, err := RefreshFields(context.Background(), fieldsOnly{fields: fields}, path, t0)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := catalog.LoadCache(path)
	if err != nil || n != 2 || !reflect.DeepEqual(fresh, cached) || !cached.FetchedAt.Equal(t0) || len(cached.Fields) != 2 {
		t.Errorf("n %d, fresh %+v, cached %+v, %v", n, fresh, cached, err)
	}
}

// TestFormatObjects: an object written over several lines is written one
// key per line with the = signs aligned, as terraform fmt leaves them;
// one on a single line, or one holding a comment, stays as it is; the
// result is stable.
func TestFormatObjects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"two per line",
			"import \"a\" {\n  file    = \"a.csv\"\n  columns = { profile_url = \"LinkedIn URL\", email = \"Email\",\n              enriched_at = \"Exported\" }\n}\n",
			"import \"a\" {\n  file = \"a.csv\"\n  columns = {\n    profile_url = \"LinkedIn URL\"\n    email       = \"Email\"\n    enriched_at = \"Exported\"\n  }\n}\n"},
		{"trailing commas",
			"x = {\n  a = 1,\n  bb = 2,\n}\n",
			"x = {\n  a  = 1\n  bb = 2\n}\n"},
		{"nested",
			"m = { uk = { city = \"London\", country = \"United Kingdom\" },\n  de = { city = \"Berlin\",\n country = \"Germany\" } }\n",
			"m = {\n  uk = { city = \"London\", country = \"United Kingdom\" }\n  de = {\n    city    = \"Berlin\"\n    country = \"Germany\"\n  }\n}\n"},
		{"one line stays",
			"x = { a = 1, b = 2 }\n",
			"x = { a = 1, b = 2 }\n"},
		{"a comment stays",
			"x = { a = 1, # the first\n  b = 2 }\n",
			"x = { a = 1, # the first\nb = 2 }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := FormatSource([]byte(tt.in), "t.leads.hcl")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			again, _ := FormatSource(got, "t.leads.hcl")
			if string(again) != string(got) {
				t.Errorf("not stable; again:\n%s", again)
			}
		})
	}
}
