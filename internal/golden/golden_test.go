package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// recT records what Check reports instead of failing the test.
type recT struct {
	testing.TB
	errors, fatals []string
}

func (r *recT) Helper() {}
func (r *recT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}
func (r *recT) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, format)
}

func TestCheck(t *testing.T) {
	if *update {
		testenv.Skip(t, "-update rewrites instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same := &recT{TB: t}
	Check(same, path, []byte("one\ntwo\n"))
	if len(same.errors)+len(same.fatals) != 0 {
		t.Errorf("equal output reported: %v %v", same.errors, same.fatals)
	}
	differs := &recT{TB: t}
	Check(differs, path, []byte("one\nthree\n"))
	if len(differs.errors) != 1 || !strings.Contains(differs.errors[0], "differs") {
		t.Errorf("different output: %v", differs.errors)
	}
	missing := &recT{TB: t}
	Check(missing, path+".none", nil)
	if len(missing.fatals) != 1 {
		t.Errorf("missing file: %v", missing.fatals)
	}
}
