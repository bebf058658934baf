package sqlstate

import (
	"github.com/leadsync/leadsync/internal/state"
)

// The moves a partial state folded (state.Changes.Renames), made in the
// people's rows by a few statements per moved address, in the
// transaction that records the move, before the people read are written
// (their rows are written again over the renamed ones). Each finds its
// rows by an index: the people the moved record lists (found_by, by
// their IDs), the enrichments of an enrich block (enrichments_by) and
// those it copied (enrichments_copied), the people a track read
// (people_tracked), the history of the calls it made
// (person_history_by). No person is read: a renamed block of 3,000,000
// people is one row of the table addresses (addrs.go).

// Stmt is one statement, in PostgreSQL's spelling, and its arguments.
type Stmt struct {
	Q    string
	Args []any
	// If, when set, is a query of a boolean (of Args' first three): the
	// statement runs only when it is true. IDs, when set, are given in
	// $4, RenameBatch at a time, one run a batch (addrs.go).
	If  string
	IDs []string
}

// The statements of a rename of $2 to $3 in workspace $1 (RenameStmts)
// that found_by's numbers leave (addrs.go: numberedRenameStmts).
const (
	enrichedRename  = `UPDATE {s}.enrichments SET by_address = $3 WHERE workspace = $1 AND by_address = $2`
	copiedRename    = `UPDATE enrichments SET extra = json_set(extra, '$.copied_by', $3) WHERE workspace = $1 AND ` + copiedBy + ` IS NOT NULL AND ` + copiedBy + ` = $2`
	pgCopiedRename  = `UPDATE {s}.enrichments SET extra = jsonb_set(extra, '{copied_by}', to_jsonb($3::text)) WHERE workspace = $1 AND ` + pgCopiedBy + ` IS NOT NULL AND ` + pgCopiedBy + ` = $2`
	historyRename   = `UPDATE {s}.person_history SET by_address = $3 WHERE workspace = $1 AND by_address = $2`
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

// RenameBatch bounds the IDs of one found_by statement (both backends).
const RenameBatch = 20_000

// movingPrefix names an address on its way in a move event that moves
// onto an address another of its moves leaves (a chain, a swap): every
// address goes to its placeholder first, then to its destination, as
// the event moves all at once. No address begins so.
const movingPrefix = "leadsync-moving:"

// RenameStmts are the statements that make the moves of s's Changes
// (Renames, one list per event, in order) in the rows of workspace ws,
// in dialect d. The IDs of the people a moved record lists are read
// from s, where the fold put the record.
func RenameStmts(d *Dialect, ws string, s *state.State, renames [][]state.Move) ([]Stmt, error) {
	var out []Stmt
	for i, ms := range renames {
		for _, step := range renameSteps(ms) {
			for _, m := range step {
				ids := listedBy(s, laterAddress(renames[i+1:], m.final))
				st, err := renameStmts(d, ws, m.Move, ids)
				if err != nil {
					return nil, err
				}
				out = append(out, st...)
			}
		}
	}
	return out, nil
}

// renameStep is one move of a step, with its destination once the
// event's moves are made.
type renameStep struct {
	state.Move
	final string
}

// renameSteps are the steps of one event's moves: the moves themselves,
// or, when one moves onto an address another leaves, each to a
// placeholder (movingPrefix), then each on.
func renameSteps(ms []state.Move) [][]renameStep {
	leaving := map[string]bool{}
	for _, m := range ms {
		leaving[m.From] = true
	}
	chained := false
	for _, m := range ms {
		chained = chained || leaving[m.To]
	}
	if !chained {
		one := make([]renameStep, len(ms))
		for i, m := range ms {
			one[i] = renameStep{Move: m, final: m.To}
		}
		return [][]renameStep{one}
	}
	first, second := make([]renameStep, len(ms)), make([]renameStep, len(ms))
	for i, m := range ms {
		first[i] = renameStep{Move: state.Move{From: m.From, To: movingPrefix + m.To}, final: m.To}
		second[i] = renameStep{Move: state.Move{From: movingPrefix + m.To, To: m.To}, final: m.To}
	}
	return [][]renameStep{first, second}
}

// laterAddress is where the moves of later events took addr.
func laterAddress(later [][]state.Move, addr string) string {
	for _, ms := range later {
		for _, m := range ms {
			if m.From == addr {
				addr = m.To
				break
			}
		}
	}
	return addr
}

// listedBy are the IDs of the people the record at addr lists: a
// search's lead list, a profile read's person, an import's people (the
// people whose found_by may name it).
func listedBy(s *state.State, addr string) []string {
	var ids []string
	if sr := s.Searches[addr]; sr != nil {
		ids = append(ids, sr.LeadIDs...)
	}
	if pr := s.Profiles[addr]; pr != nil && pr.PersonID != "" {
		ids = append(ids, pr.PersonID)
	}
	if im := s.Imports[addr]; im != nil {
		ids = append(ids, im.PersonIDs...)
	}
	return ids
}

// renameStmts are the statements of one move: the address's row, the
// found_by of the people of ids when it moves onto a numbered one, then
// what the people's enrichments, tracks and histories name.
func renameStmts(d *Dialect, ws string, m state.Move, ids []string) ([]Stmt, error) {
	return numberedRenameStmts(d, ws, m, ids), nil
}

func pick(pg bool, pgQ, sqliteQ string) string {
	if pg {
		return pgQ
	}
	return sqliteQ
}
