package e2e

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestMutantsStillApply keeps .ci/mutants true to the code: each
// mutation's text must occur exactly once in the file it names, so that a
// refactoring that moves a rule (a file split, a rename) fails here, in
// go test ./..., instead of leaving .ci/mutate to find the mutation stale
// long after. Whether the tests catch each mutation is .ci/mutate's work.
func TestMutantsStillApply(t *testing.T) {
	f, err := os.Open(repoFile(".ci", "mutants"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " @@ ")
		if len(parts) < 4 {
			t.Errorf(".ci/mutants: %q: want file @@ text @@ mutation @@ packages [@@ run]", line)
			continue
		}
		n++
		src, err := os.ReadFile(repoFile(parts[0]))
		if err != nil {
			t.Errorf(".ci/mutants names %s: %v", parts[0], err)
			continue
		}
		if c := strings.Count(string(src), parts[1]); c != 1 {
			t.Errorf(".ci/mutants: %s holds %q %d times, not once: the rule moved; point the mutation at where it is now", parts[0], parts[1], c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal(".ci/mutants lists no mutation")
	}
}
