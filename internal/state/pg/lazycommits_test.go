package pg

import (
	"context"
	"testing"
)

// The tests' Backends commit without waiting for the disk
// (testenv.LazyCommits, through testConnStr): a Backend's session says
// synchronous_commit is off. (What one session commits the next reads:
// the conformance suite checks that throughout.)
func TestTestSessionsCommitLazily(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	apply(t, b, events())
	ctx := context.Background()
	var setting string
	mustNoErr(t, b.conn.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&setting), "show")
	if setting != "off" {
		t.Fatalf("a test Backend's synchronous_commit is %q, want off", setting)
	}
}
