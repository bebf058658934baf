package sqlstate

import (
	"github.com/leadsync/leadsync/internal/state"
)

// The moves a partial state folded (state.Changes.Renames), made in the
// people's rows by a few statements per moved address, in the
// transaction that records the move, before the people read are written
// (their rows are written again over the renamed ones). Each finds its
// rows by an index: the enrichments of an enrich block (enrichments_by) and
// those it copied (enrichments_copied), the people a track read
// (people_tracked), the history of the calls it made
// (person_history_by). No person is read: a renamed block of 3,000,000
// people is one row of the table addresses (addrs.go).

// Stmt is one statement, in PostgreSQL's spelling, and its arguments.
type Stmt struct {
	Q    string
	Args []any
	// If, when set, is a query of a boolean (of Args): the statement
	// runs only when it is true (addrs.go).
	If string
}

// The statements of a rename of $2 to $3 in workspace $1 (RenameStmts)
// that the numbered addresses leave (addrs.go: stepStmts): a track's
// read is named in the person's extra. The enrichments' and histories'
// numbers change only when $3 has a number already (numberedRenames).
const (
	pgTrackedRename = `UPDATE {s}.people SET extra = jsonb_set(extra, '{tracked}', ((extra->'tracked') - $2::text) || jsonb_build_object($3::text, extra->'tracked'->$2::text))
		WHERE workspace = $1 AND jsonb_exists(extra, 'tracked') AND jsonb_exists(extra->'tracked', $2::text)`
)

// trackedRename renames the key of a track's read in the extra of the
// people holding one (the rows SelectTracked finds), the keys kept in
// order as Go writes a map (json: a subquery's value loses its JSON
// subtype).
var trackedRename = `UPDATE people SET extra = json_set(extra, '$.tracked', json((SELECT json_group_object(k, v) FROM
	(SELECT CASE WHEN key = $2 THEN $3 ELSE key END AS k, value AS v FROM json_each(people.extra, '$.tracked') ORDER BY 1))))
	WHERE workspace = $1 AND id IN (` + SelectTracked + `)`

// movingPrefix names an address on its way in a move event that moves
// onto an address another of its moves leaves (a chain, a swap): every
// address goes to its placeholder first, then to its destination, as
// the event moves all at once. No address begins so.
const movingPrefix = "leadsync-moving:"

// RenameStmts are the statements that make the moves of a partial
// state's Changes (Renames, one list per event, in order) in the rows of
// workspace ws, in dialect d.
func RenameStmts(d *Dialect, ws string, renames [][]state.Move) []Stmt {
	var out []Stmt
	for _, ms := range renames {
		for _, step := range renameSteps(ms) {
			out = append(out, stepStmts(d, ws, step)...)
		}
	}
	return out
}

// renameSteps are the steps of one event's moves: the moves themselves,
// or, when one moves onto an address another leaves, each to a
// placeholder (movingPrefix), then each on.
func renameSteps(ms []state.Move) [][]state.Move {
	leaving := map[string]bool{}
	for _, m := range ms {
		leaving[m.From] = true
	}
	chained := false
	for _, m := range ms {
		chained = chained || leaving[m.To]
	}
	if !chained {
		return [][]state.Move{ms}
	}
	first, second := make([]state.Move, len(ms)), make([]state.Move, len(ms))
	for i, m := range ms {
		first[i] = state.Move{From: m.From, To: movingPrefix + m.To}
		second[i] = state.Move{From: movingPrefix + m.To, To: m.To}
	}
	return [][]state.Move{first, second}
}

func pick(pg bool, pgQ, sqliteQ string) string {
	if pg {
		return pgQ
	}
	return sqliteQ
}
