package cli

import (
	"context"
	"strings"
	"testing"
)

// TestConsoleExitCodes: a line that fails makes the console exit 1 at the
// end when its input is no terminal (a script of checks), 0 when a person
// typed it (they saw the error); the lines after it are read either way.
// The state's lock does not stop it: it reads without one. (Ann is no
// longer a CTO: a track read her new title.)
func TestConsoleExitCodes(t *testing.T) {
	dir, store := stateTestDir(t)
	if _, err := store.Lock("apply"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		tty      bool
		in       string
		code     int
		out, err string
	}{
		{name: "piped, all good", in: "length(search.cto)\n", code: 0, out: "2\n"},
		{name: "piped, a line fails", in: "local.nope\nsearch.cto[\"Hamburg\"].people\n", code: 1, out: "1\n", err: "on <console-input> line 1:"},
		{name: "typed, a line fails", tty: true, in: "local.nope\nprofile.founder.people\n", code: 0, out: "> > 1\n> ", err: "Unsupported attribute"},
		{name: "a where against the state", in: "where lead.title == \"CTO\"\n", code: 0, out: "1 of 3 people selected:\n  person.102.bb  Bob Brandt\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, out, errOut := configTestFactory(dir)
			f.IO.InTTY = c.tty
			f.IO.In = strings.NewReader(c.in)
			code := Run(context.Background(), f, []string{"console"})
			if code != c.code || out.String() != c.out || !strings.Contains(errOut.String(), c.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q and %q", code, out, errOut, c.code, c.out, c.err)
			}
		})
	}
}
