package sqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// On SQLite each value a row gives costs three calls into the engine,
// each taking the connection's lock (modernc.org/sqlite opens every
// connection serialized), and a Go string: reading 300,000 people of 20
// columns was half the load. SQLite therefore gives each person as one
// text, json_array of the columns (texts and nulls only: every column of
// people is text), which splitPacked cuts apart.

// SelectPeoplePacked is SelectPeople's columns, in that order, as one
// JSON array per row (SQLite's json_array).
var SelectPeoplePacked = `SELECT json_array(id, ` + selectList(FieldColumns(LeadCols)) + `,
	first_seen, last_seen, found_by, profile, profile_read_at, raw, extra, status, status_since, checked_at) FROM {s}.people WHERE workspace = $1`

// peopleCols is the number of columns SelectPeople reads.
var peopleCols = 1 + len(LeadCols) + 10

// peoplePacked reads the people from SelectPeoplePacked into s.People,
// decoded by d.
func (r *Reader) peoplePacked(ctx context.Context, s *state.State, w where, d *personDecoder) error {
	rows, err := r.query(ctx, SelectPeoplePacked+w.on("id")+w.tail, append([]any{r.WS}, w.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]sql.NullString, peopleCols)
	n := 1 + len(LeadCols)
	var row string
	for rows.Next() {
		if err := rows.Scan(&row); err != nil {
			return fmt.Errorf("people: %w", err)
		}
		// found_by is left as the row holds it: d shares its list by that text.
		escaped, err := cutPacked(row, v, n+2)
		if err != nil {
			return fmt.Errorf("people: %w", err)
		}
		p, err := packedPerson(v)
		if err != nil {
			return fmt.Errorf("people: %w", err)
		}
		if p.FoundBy, err = d.foundBy(v[n+2], true, escaped); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
		if err := readPerson(p, d, v[n], v[n+1], v[n+3], v[n+4], v[n+5], v[n+6], v[n+8], v[n+9]); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
		s.People[p.ID] = p
	}
	return rows.Err()
}

// packedPerson is the person of the values v (SelectPeople's columns)
// with its plain texts set: the id, the lead's fields and the status,
// copied into one string of their own so that the row's text (times,
// lists, JSON documents, read by readPerson) is not kept with them.
func packedPerson(v []sql.NullString) (*state.Person, error) {
	n := 1 + len(LeadCols)
	status := n + 7
	size := len(v[status].String)
	for i := 0; i < n; i++ {
		size += len(v[i].String)
	}
	var b strings.Builder
	b.Grow(size)
	for i := 0; i < n; i++ {
		b.WriteString(v[i].String)
	}
	b.WriteString(v[status].String)
	all := b.String()
	next := func(i int) (string, error) {
		if !v[i].Valid {
			return "", fmt.Errorf("column %d of a person is NULL", i+1)
		}
		t := all[:len(v[i].String)]
		all = all[len(t):]
		return t, nil
	}
	p := &state.Person{}
	var err error
	if p.ID, err = next(0); err != nil {
		return nil, err
	}
	for i, f := range LeadCols {
		if *f.Lead(&p.Lead), err = next(1 + i); err != nil {
			return nil, err
		}
	}
	if p.Status, err = next(status); err != nil {
		return nil, err
	}
	return p, nil
}

// splitPacked cuts a JSON array of texts and nulls, as json_array writes
// it, into out, which must be as long: a text without escapes is a part of
// row, one with escapes is unescaped (unescapePacked).
func splitPacked(row string, out []sql.NullString) error {
	_, err := cutPacked(row, out, -1)
	return err
}

// cutPacked is splitPacked but for the value at index raw, left as row
// holds it (without its quotes), and whether that value holds an escape.
func cutPacked(row string, out []sql.NullString, raw int) (rawEscaped bool, err error) {
	bad := func(what string) error {
		return fmt.Errorf("a packed row %.40q is not a JSON array of %d texts: %s", row, len(out), what)
	}
	i := skipSpace(row, 0)
	if i >= len(row) || row[i] != '[' {
		return false, bad("no [")
	}
	i++
	for k := range out {
		i = skipSpace(row, i)
		if k > 0 {
			if i >= len(row) || row[i] != ',' {
				return false, bad("too few values")
			}
			i = skipSpace(row, i+1)
		}
		switch {
		case strings.HasPrefix(row[i:], "null"):
			out[k] = sql.NullString{}
			i += 4
		case i < len(row) && row[i] == '"':
			end, escaped := textEnd(row, i+1)
			if end < 0 {
				return false, bad("an unterminated text")
			}
			out[k] = sql.NullString{String: row[i+1 : end], Valid: true}
			if k == raw {
				rawEscaped = escaped
			} else if escaped {
				if out[k].String, err = unescapePacked(out[k].String); err != nil {
					return false, bad(err.Error())
				}
			}
			i = end + 1
		default:
			return false, bad(fmt.Sprintf("value %d is neither a text nor null", k+1))
		}
	}
	if i = skipSpace(row, i); i >= len(row) || row[i] != ']' || skipSpace(row, i+1) != len(row) {
		return false, bad("too many values")
	}
	return rawEscaped, nil
}

// unescapePacked is the JSON text t (without its quotes) unescaped, by
// encoding/json when it holds a \u escape.
func unescapePacked(t string) (string, error) {
	if u, ok := unescape(t); ok {
		return u, nil
	}
	var u string
	err := json.Unmarshal([]byte(`"`+t+`"`), &u)
	return u, err
}

// textEnd is the index of the quote that ends the JSON text starting at
// i (after its opening quote), -1 for none, and whether it holds an
// escape.
func textEnd(row string, i int) (int, bool) {
	escaped := false
	for i < len(row) {
		switch row[i] {
		case '"':
			return i, escaped
		case '\\':
			escaped = true
			i++
		}
		i++
	}
	return -1, escaped
}

func skipSpace(row string, i int) int {
	for i < len(row) && (row[i] == ' ' || row[i] == '\t' || row[i] == '\n' || row[i] == '\r') {
		i++
	}
	return i
}

// unescape decodes the escapes of the JSON text t (without its quotes);
// false when t holds a \u escape (or an unknown one), left to
// encoding/json.
func unescape(t string) (string, bool) {
	// One allocation: the Builder's bytes become the string.
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(t) {
			return "", false
		}
		switch t[i] {
		case '"', '\\', '/':
			b.WriteByte(t[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// SelectEnrichmentsPacked is SelectEnrichments' columns, in that order,
// as one JSON array per row; the whole numbers as texts.
var SelectEnrichmentsPacked = `SELECT json_array(person_id, enriched_at, CAST(by_n AS TEXT), CAST(copied_n AS TEXT), ` + packedResultCols("") + `, extra)
	FROM {s}.enrichments WHERE workspace = $1`

// enrichmentWidth is how many values a row of SelectEnrichmentsPacked
// has.
var enrichmentWidth = 4 + len(ResultCols) + 1

// packedResultCols are the enrichments' result columns, each a text,
// each name after prefix (a table's alias and its dot, or "").
func packedResultCols(prefix string) string {
	cols := make([]string, len(ResultCols))
	for i, f := range ResultCols {
		cols[i] = prefix + f.PG
		if f.EnrichedInt != nil {
			cols[i] = "CAST(" + prefix + f.PG + " AS TEXT)"
		}
	}
	return strings.Join(cols, ", ")
}

// enrichmentsPacked is enrichmentsWhere on SQLite: each enrichment one
// text (SelectEnrichmentsPacked), cut apart by splitPacked.
func (r *Reader) enrichmentsPacked(ctx context.Context, s *state.State, w where, names *blockNames) error {
	rows, err := r.query(ctx, SelectEnrichmentsPacked+w.on("person_id"), append([]any{r.WS}, w.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]sql.NullString, enrichmentWidth)
	var row string
	for rows.Next() {
		if err := rows.Scan(&row); err != nil {
			return fmt.Errorf("enrichments: %w", err)
		}
		if err := splitPacked(row, v); err != nil {
			return fmt.Errorf("enrichments: %w", err)
		}
		id := v[0].String
		e, err := packedEnrichment(v, names)
		if err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if p := s.People[id]; p != nil {
			p.Enrichment = e
		}
	}
	return rows.Err()
}

// packedEnrichment is the enrichment of the values v
// (SelectEnrichmentsPacked's columns); its texts are copies, so that the
// row is not kept with them.
func packedEnrichment(v []sql.NullString, names *blockNames) (*state.Enrichment, error) {
	e := &state.Enrichment{}
	var err error
	if e.By, err = names.text(v[2]); err != nil {
		return nil, err
	}
	if e.CopiedBy, err = names.text(v[3]); err != nil {
		return nil, err
	}
	if e.EnrichedAt, err = parseTime(v[1]); err != nil {
		return nil, err
	}
	for i, f := range ResultCols {
		t := v[4+i].String
		if f.EnrichedInt != nil {
			if *f.EnrichedInt(&e.Result), err = strconv.Atoi(t); err != nil {
				return nil, fmt.Errorf("%s: %w", f.PG, err)
			}
			continue
		}
		*f.Enriched(&e.Result) = strings.Clone(t)
	}
	if err := EnrichmentExtra.Decode([]byte(v[4+len(ResultCols)].String), e); err != nil {
		return nil, err
	}
	return e, nil
}
