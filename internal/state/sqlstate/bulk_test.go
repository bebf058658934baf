package sqlstate

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestRowsSQL spells a statement of one row as one of n rows, the
// placeholders numbered on, the clause after VALUES kept.
func TestRowsSQL(t *testing.T) {
	one := `INSERT INTO {s}.t (a, b) VALUES ($1, $2) ON CONFLICT (a, b) DO NOTHING`
	cases := []struct {
		n    int
		want string
	}{
		{1, one},
		{3, `INSERT INTO {s}.t (a, b) VALUES ($1, $2), ($3, $4), ($5, $6) ON CONFLICT (a, b) DO NOTHING`},
	}
	for _, c := range cases {
		if got := rowsSQL(one, c.n); got != c.want {
			t.Errorf("rowsSQL(%d) = %s, want %s", c.n, got, c.want)
		}
	}
	people := rowsSQL(UpsertSQL("people", PeopleCols), 2)
	if want := "$" + strconv.Itoa(2*len(PeopleCols)) + ") ON CONFLICT (workspace, id) DO UPDATE SET"; !strings.Contains(people, want) {
		t.Errorf("the people's statement of two rows %q holds no %q", people, want)
	}
	if got := anonymous(SQLite.Rewrite(people)); strings.Contains(got, "?1") {
		t.Errorf("the people's statement of two rows keeps numbered placeholders: %s", got)
	}
}

// TestExecRowsRefusesPartRows: values that are not whole rows are
// refused before any statement, not looped over without end.
func TestExecRowsRefusesPartRows(t *testing.T) {
	for _, c := range []struct {
		k    int
		vals []any
	}{{3, []any{1, 2}}, {2, []any{1, 2, 3}}, {0, []any{1}}} {
		var b bulk
		if err := b.execRows(context.Background(), nil, "INSERT INTO t VALUES ($1)", c.k, c.vals); err == nil {
			t.Errorf("execRows of %d values in rows of %d: no error", len(c.vals), c.k)
		}
	}
}
