package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestNearestIgnoresSingleLetterContainment(t *testing.T) {
	if got := Nearest("region", []string{"n", "cities", "api_key"}, 3); slices.Contains(got, "n") {
		t.Errorf("Nearest(region) = %v: a one-letter name is no hint", got)
	}
	if got := Nearest("IT", []string{"Internet and IT", "Insurance"}, 1); !slices.Equal(got, []string{"Internet and IT"}) {
		t.Errorf("Nearest(IT) = %v, want Internet and IT", got)
	}
}

func TestSaveCacheMakesAPrivateFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	if err := SaveCache(filepath.Join(dir, "fields.json"), Default().Fields, time.Now()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf(".leadsync made with mode %o, want 700", perm)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
		t.Errorf("no .gitignore: %v", err)
	}
}
