package testenv

import "testing"

// TestLazyCommits: the option is added to a URL (with or without other
// parameters) and to a key=value string, and a string that sets options
// of its own is left alone.
func TestLazyCommits(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"postgres://u@h:5/db", "postgres://u@h:5/db?options=-c%20synchronous_commit%3Doff"},
		{"postgresql://u@h/db?sslmode=disable", "postgresql://u@h/db?sslmode=disable&options=-c%20synchronous_commit%3Doff"},
		{"host=h dbname=db", "host=h dbname=db options='-c synchronous_commit=off'"},
		{"postgres://h/db?options=-c%20work_mem=8MB", "postgres://h/db?options=-c%20work_mem=8MB"},
	} {
		if got := LazyCommits(c.in); got != c.want {
			t.Errorf("LazyCommits(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
