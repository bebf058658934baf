package sqlstate

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

var errNotTexts = errors.New("not a JSON array of texts")

// splitTexts reads a JSON array of texts (a list column: SQLite keeps it
// as Dialect.List writes it, PostgreSQL's array_to_json writes its
// text[] so) as splitPacked reads a row: a search's 300 lead IDs, 10,000
// searches, without encoding/json's reflection. The texts share one
// string: parts of list when it holds no escape, else parts of one string
// of the unescaped texts. A list costs its slice and at most that string,
// however many texts it holds. null is nil, [] an empty slice.
func splitTexts(list string) ([]string, error) {
	return appendTexts(nil, list)
}

// appendTexts appends the texts of list (see splitTexts) to dst; null
// appends none.
func appendTexts(dst []string, list string) ([]string, error) {
	bad := errNotTexts
	i := skipSpace(list, 0)
	if strings.HasPrefix(list[i:], "null") && skipSpace(list, i+4) == len(list) {
		return dst, nil
	}
	if i >= len(list) || list[i] != '[' {
		return nil, bad
	}
	out := slices.Grow(dst, strings.Count(list, ",")+1)
	escaped := false
	i = skipSpace(list, i+1)
	if i < len(list) && list[i] == ']' {
		if skipSpace(list, i+1) != len(list) {
			return nil, bad
		}
		return out, nil
	}
	for {
		if i >= len(list) || list[i] != '"' {
			return nil, bad
		}
		end, esc := textEnd(list, i+1)
		if end < 0 {
			return nil, bad
		}
		escaped = escaped || esc
		out = append(out, list[i+1:end])
		i = skipSpace(list, end+1)
		switch {
		case i < len(list) && list[i] == ',':
			i = skipSpace(list, i+1)
		case i < len(list) && list[i] == ']' && skipSpace(list, i+1) == len(list):
			if escaped {
				if err := unescapeAll(out[len(dst):], len(list)); err != nil {
					return nil, err
				}
			}
			return out, nil
		default:
			return nil, bad
		}
	}
}

// unescapeAll replaces the texts of out (JSON texts without their
// quotes, size bytes at most in all) by their unescaped values, parts of
// one new string: unescape reads the escapes, encoding/json a text with a
// \u escape.
func unescapeAll(out []string, size int) error {
	var b strings.Builder
	b.Grow(size)
	ends := make([]int, len(out))
	for k, t := range out {
		if strings.IndexByte(t, '\\') >= 0 {
			u, ok := unescape(t)
			if !ok {
				if err := json.Unmarshal([]byte(`"`+t+`"`), &u); err != nil {
					return errNotTexts
				}
			}
			t = u
		}
		b.WriteString(t)
		ends[k] = b.Len()
	}
	all, start := b.String(), 0
	for k, end := range ends {
		out[k], start = all[start:end], end
	}
	return nil
}

// leadLists reads the lead IDs of the search records at addrs, by
// address, in one query (state.LeadLister): reading 10,000 lists one
// query each cost the plan of 10,000 searches a third of its CPU. An
// address without a record is left out; one of a search without a list
// maps to nil.
func (p *peopleStore) leadLists(addrs []string) (map[string][]string, error) {
	return readLeadLists(p, addrs, readList)
}

// readLeadLists reads the lead lists of the search records at addrs, by
// address, in one query, each decoded by decode from its list column
// (leadLists, packedLeadLists). An address without a record is left out.
func readLeadLists[T any](p *peopleStore, addrs []string, decode func(sql.NullString) (T, error)) (map[string]T, error) {
	out := make(map[string]T, len(addrs))
	if len(addrs) == 0 {
		return out, nil
	}
	list, err := p.r.D.List(addrs)
	if err != nil {
		return nil, err
	}
	q := strings.Replace(SelectLeadLists, "lead_ids", p.r.D.listText("lead_ids"), 1) + " AND " + p.r.D.inList("address", "$2")
	rows, err := p.r.query(p.ctx, q, p.r.WS, list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var addr string
		var ids sql.NullString
		if err := rows.Scan(&addr, &ids); err != nil {
			return nil, err
		}
		if out[addr], err = decode(ids); err != nil {
			return nil, fmt.Errorf("search %s: %w", addr, err)
		}
	}
	return out, rows.Err()
}
