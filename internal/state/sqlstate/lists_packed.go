package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

var _ state.LeadPacker = wrapped{}

func (w wrapped) PackedLeadLists(addrs []string) (map[string]state.IDList, error) {
	out, err := w.p.packedLeadLists(addrs)
	return out, w.err(err)
}

// packedLeadLists reads the lead lists of the search records at addrs as
// leadLists does, each packed (state.IDList) from its row: a list costs
// its IDs' text, and their ends unless they have one length, cut from
// slabs the lists share (state.ListPacker), not a string of JSON and a
// slice of strings. An address without a record is left out; a search
// without a list maps to an empty list.
func (p *peopleStore) packedLeadLists(addrs []string) (map[string]state.IDList, error) {
	var lp state.ListPacker
	return readLeadLists(p, addrs, func(list sql.NullString) (state.IDList, error) {
		return packList(&lp, list)
	})
}

// packList packs the JSON array of texts list (a list column; NULL and
// null are the empty list). Its texts without escapes are copied end to
// end into lp's slab; a list with an escape is read by splitTexts first.
// The row's string is not kept: it becomes garbage at once.
func packList(lp *state.ListPacker, list sql.NullString) (state.IDList, error) {
	if !list.Valid {
		return state.PackedIDs("", nil), nil
	}
	row := list.String
	if strings.IndexByte(row, '\\') >= 0 {
		ids, err := splitTexts(row)
		if err != nil {
			return state.IDList{}, fmt.Errorf("a list %q is not a JSON array of texts", row)
		}
		return state.PackIDs(ids), nil
	}
	l, ok := packPlain(lp, row)
	if !ok {
		return state.IDList{}, fmt.Errorf("a list %q is not a JSON array of texts", row)
	}
	return l, nil
}

// packPlain packs row, a JSON array of texts without an escape (or
// null), as splitTexts reads it; false when it is not one.
func packPlain(lp *state.ListPacker, row string) (state.IDList, bool) {
	i := skipSpace(row, 0)
	if strings.HasPrefix(row[i:], "null") && skipSpace(row, i+4) == len(row) {
		return state.PackedIDs("", nil), true
	}
	if i >= len(row) || row[i] != '[' {
		return state.IDList{}, false
	}
	// The size of the texts: the row less its quotes, commas, brackets
	// and spaces, counted on a first pass that checks the form too.
	size, ok := plainTexts(row, i+1, nil)
	if !ok {
		return state.IDList{}, false
	}
	lp.Begin(size)
	plainTexts(row, i+1, lp)
	return lp.End(), true
}

// plainTexts walks the texts of row from i (after its '['): the size of
// their characters, and whether row is a JSON array of texts to its end.
// With lp, it adds each text to the list lp has begun.
func plainTexts(row string, i int, lp *state.ListPacker) (size int, ok bool) {
	i = skipSpace(row, i)
	if i < len(row) && row[i] == ']' {
		return 0, skipSpace(row, i+1) == len(row)
	}
	for {
		if i >= len(row) || row[i] != '"' {
			return 0, false
		}
		end := strings.IndexByte(row[i+1:], '"')
		if end < 0 {
			return 0, false
		}
		end += i + 1
		size += end - i - 1
		if lp != nil {
			lp.Add(row[i+1 : end])
		}
		i = skipSpace(row, end+1)
		switch {
		case i < len(row) && row[i] == ',':
			i = skipSpace(row, i+1)
		case i < len(row) && row[i] == ']' && skipSpace(row, i+1) == len(row):
			return size, true
		default:
			return 0, false
		}
	}
}
