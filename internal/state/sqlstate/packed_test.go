package sqlstate

import (
	"database/sql"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitPacked(t *testing.T) {
	text := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	for _, tc := range []struct {
		row  string
		want []sql.NullString
		err  string
	}{
		{row: `["a","",null]`, want: []sql.NullString{text("a"), text(""), {}}},
		{row: ` [ "x" , null , "é ü" ] `, want: []sql.NullString{text("x"), {}, text("é ü")}},
		{row: `["{\"k\":[\"v\"]}","a\\b\/c","t\tn\nr\rb\bf\f"]`, want: []sql.NullString{text(`{"k":["v"]}`), text(`a\b/c`), text("t\tn\nr\rb\bf\f")}},
		{row: `["\u00e9\u0001","\ud83d\ude00",null]`, want: []sql.NullString{text("é\x01"), text("😀"), {}}},
		{row: `["a","b"]`, err: "too few values"},
		{row: `["a","b","c","d"]`, err: "too many values"},
		{row: `["a",1,"c"]`, err: "value 2 is neither a text nor null"},
		{row: `["a","b","c`, err: "an unterminated text"},
		{row: `"a","b","c"`, err: "no ["},
		{row: `["a","b","\x"]`, err: "invalid character"},
	} {
		got := make([]sql.NullString, 3)
		err := splitPacked(tc.row, got)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one with %q", tc.row, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.row, got, err, tc.want)
		}
	}
}

// FuzzSplitPacked: any texts packed as a JSON array come back exactly as
// they were (null as null), and no row, however broken, makes splitPacked
// panic.
func FuzzSplitPacked(f *testing.F) {
	f.Add("a", "b\\\"c", false, `["x",null,"y"]`)
	f.Add("\u00e9\x01", "😀", true, `["a",1,"c"]`)
	f.Add("", "</>&\u2028", false, `["\ud83d`)
	f.Fuzz(func(t *testing.T, a, b string, null bool, raw string) {
		_ = splitPacked(raw, make([]sql.NullString, 3))
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // SQLite's texts are UTF-8; json.Marshal would change them
		}
		var mid any = b
		if null {
			mid = nil
		}
		row, err := json.Marshal([]any{a, mid, b})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]sql.NullString, 3)
		if err := splitPacked(string(row), got); err != nil {
			t.Fatalf("splitPacked(%s): %v", row, err)
		}
		want := []sql.NullString{{String: a, Valid: true}, {String: b, Valid: !null}, {String: b, Valid: true}}
		if null {
			want[1] = sql.NullString{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("splitPacked(%s) = %+v, want %+v", row, got, want)
		}
	})
}
