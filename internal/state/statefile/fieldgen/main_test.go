package main

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fields_gen.go is what fieldgen writes from the table of person fields
// now: a row added, changed or removed fails here until go generate
// ./internal/state/statefile is run.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../fields_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Fatalf("internal/state/statefile/fields_gen.go is out of date with person.PersonFields: run go generate ./internal/state/statefile (-generated +file):\n%s", d)
	}
}
