package sqlstate

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// Dialect is what differs between the two engines in the model's values
// and the queries' text. The queries are written in PostgreSQL's spelling;
// Rewrite turns them into the engine's.
type Dialect struct {
	// Name is the engine's name, for messages.
	Name string
	// time is a time's value: a timestamptz on PostgreSQL, a text in
	// TimeLayout on SQLite (sorted as text, read by sqlite3's date
	// functions).
	time func(t time.Time) any
	// List is a list of texts' value (NULL for nil): text[] on
	// PostgreSQL, a JSON array on SQLite.
	List func(l []string) (any, error)
	// JSON is a JSON document's value (NULL for nil): jsonb on PostgreSQL,
	// text on SQLite.
	JSON func(b []byte) any
	// schema replaces "{s}." (the tables' schema).
	schema func(q string) string
	// positional turns $n into the engine's n-th parameter.
	positional bool
	// packRows reads each person as one JSON array (packed.go): on
	// SQLite each column read costs calls into the engine.
	packRows bool
	// byteOrder follows a person ID in a comparison or ORDER BY to
	// compare bytes (a Base's pages go in the order of the IDs' bytes,
	// whatever the database's collation): PostgreSQL's "C" collation.
	byteOrder string
	// listLength is the number of texts in a list column, 0 for NULL;
	// listText the column as a JSON array's text (as SQLite keeps it).
	listLength func(col string) string
	listText   func(col string) string
	// keptList is the list column col less the texts for which the
	// condition keep (of the SQL expression of a text) fails, in order.
	keptList func(col string, keep func(text string) string) string
	// packTexts is a query of the columns cols of q (a query of id and
	// cols, in ID order), each as one JSON array's text, in the same order:
	// one row, however many q gives (packIDs).
	packTexts func(q string, cols ...string) string
	// inList is the condition that col is one of the texts of the list
	// (List's value) in the parameter param: one parameter, however long
	// the list (SQLite's driver names each parameter of a statement at a
	// cost that grows with their number).
	inList func(col, param string) string
	// listRows is a FROM item of the texts of the list (List's value) in
	// the parameter param: one row each, its text in column value of
	// the alias as.
	listRows func(param, as string) string
	// spelled are texts of a query in SQLite's spelling and the engine's:
	// the empty list of a list column (queries.go's unlisted).
	spelled []string
}

// TimeLayout is how SQLite keeps a time: UTC, nanoseconds, always the same
// width, so that comparing the texts compares the times.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// Postgres is the dialect of the pg backend; schema is the quoted schema
// name.
func Postgres(schema string) *Dialect {
	return &Dialect{
		Name: "PostgreSQL",
		time: func(t time.Time) any { return t },
		List: func(l []string) (any, error) { return l, nil },
		JSON: func(b []byte) any {
			if b == nil {
				return nil
			}
			return b
		},
		schema:     func(q string) string { return strings.ReplaceAll(q, "{s}", schema) },
		byteOrder:  ` COLLATE "C"`,
		listLength: func(col string) string { return "coalesce(cardinality(" + col + "), 0)" },
		listText:   func(col string) string { return "array_to_json(" + col + ")::text" },
		keptList: func(col string, keep func(string) string) string {
			return "ARRAY(SELECT l.id FROM unnest(" + col + ") WITH ORDINALITY AS l(id, n) WHERE " + keep("l.id") + " ORDER BY l.n)"
		},
		packTexts: func(q string, cols ...string) string {
			return packed(q, cols, func(col string) string {
				return `coalesce(json_agg(` + col + ` ORDER BY id COLLATE "C"), '[]')::text`
			}) + " AS page"
		},
		inList: func(col, param string) string { return col + " = ANY(" + param + ")" },
		listRows: func(param, as string) string {
			return "unnest(" + param + "::text[]) AS " + as + "(value)"
		},
		spelled: []string{CountUnlisted, pgCountUnlisted, unlisted, `(found_by IS NULL OR cardinality(found_by) = 0)`,
			SelectTracks, pgSelectTracks, SelectTracked, pgSelectTracked, CountTracks, pgCountTracks, SelectPaged, pgSelectPaged, SelectPageless, pgSelectPageless,
			SelectSeenBefore, pgSelectSeenBefore, keptSeen, "", SelectTrackSketched, pgSelectTrackSketched, SelectTrackSketchedFew, pgSelectTrackSketched},
	}
}

// SQLite is the dialect of the local database: one schema (main), the
// parameters ?n.
var SQLite = &Dialect{
	Name: "SQLite",
	time: func(t time.Time) any { return t.UTC().Format(TimeLayout) },
	List: func(l []string) (any, error) {
		if l == nil {
			return nil, nil
		}
		b, err := json.Marshal(l)
		return string(b), err
	},
	JSON: func(b []byte) any {
		if b == nil {
			return nil
		}
		return string(b)
	},
	schema:     func(q string) string { return strings.ReplaceAll(q, "{s}.", "") },
	positional: true,
	packRows:   true,
	listLength: func(col string) string { return "coalesce(json_array_length(" + col + "), 0)" },
	listText:   func(col string) string { return col },
	packTexts: func(q string, cols ...string) string {
		return packed(q, cols, func(col string) string { return `coalesce(json_group_array(` + col + `), '[]')` })
	},
	inList:   func(col, param string) string { return col + " IN (SELECT value FROM json_each(" + param + "))" },
	listRows: func(param, as string) string { return "json_each(" + param + ") AS " + as },
	keptList: func(col string, keep func(string) string) string {
		return "(SELECT json_group_array(l.value ORDER BY l.key) FROM json_each(" + col + ") AS l WHERE " + keep("l.value") + ")"
	},
}

// packIDs is a query of the IDs of q (a query of id, in order) as one
// JSON array's text, in the same order (packTexts).
func (d *Dialect) packIDs(q string) string { return d.packTexts(q, "id") }

// packed is the query of cols of q, each packed by pack (Dialect.packTexts).
func packed(q string, cols []string, pack func(col string) string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = pack(c)
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM (" + q + ")"
}

var dollarParam = regexp.MustCompile(`\$([0-9]+)`)

// Rewrite turns a query in PostgreSQL's spelling into d's.
func (d *Dialect) Rewrite(q string) string {
	if len(d.spelled) > 0 {
		q = strings.NewReplacer(d.spelled...).Replace(q)
	}
	q = d.schema(q)
	if d.positional {
		q = dollarParam.ReplaceAllString(q, "?$1")
	}
	return q
}

// Time is a time's value, NULL for the zero time.
func (d *Dialect) Time(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return d.time(t)
}

// TimePtr is an optional time's value, NULL for nil.
func (d *Dialect) TimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return d.time(*t)
}

// TimeValue is a time's value, the zero time too (a NOT NULL column).
func (d *Dialect) TimeValue(t time.Time) any { return d.time(t) }

// InSchema is d with its tables in the schema name (an attached SQLite
// database: state push copies from one): "{s}." becomes "name.".
func (d *Dialect) InSchema(name string) *Dialect {
	c := *d
	c.schema = func(q string) string { return strings.ReplaceAll(q, "{s}.", name+".") }
	return &c
}
