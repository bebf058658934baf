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

func TestSplitTexts(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
		bad  bool
	}{
		{list: `[]`, want: []string{}},
		{list: ` [ ] `, want: []string{}},
		{list: `["a"]`, want: []string{"a"}},
		{list: `["a", "b\"c" ,"\u00e9\\"]`, want: []string{"a", `b"c`, `é\`}},
		{list: `["a",]`, bad: true},
		{list: `["a" "b"]`, bad: true},
		{list: `["a",null]`, bad: true},
		{list: `["a"`, bad: true},
		{list: `"a"`, bad: true},
		{list: `["a"] x`, bad: true},
		{list: `[1]`, bad: true},
		{list: `null`, want: nil},
		{list: ` null `, want: nil},
		{list: `nul`, bad: true},
		{list: `null]`, bad: true},
		{list: `[null]`, bad: true},
		{list: ``, bad: true},
		{list: `["\u003c\u0026\u003e","\ud83d\ude00","\u2028",""]`, want: []string{"<&>", "😀", "\u2028", ""}},
		{list: `["a\/b","\b\f\n\r\t","plain","\"","日本"]`, want: []string{"a/b", "\b\f\n\r\t", "plain", `"`, "日本"}},
		{list: `["a\x"]`, bad: true},
		{list: `["a\u12"]`, bad: true},
		{list: `["a\"]`, bad: true},
	} {
		got, err := splitTexts(tc.list)
		if tc.bad != (err != nil) || !tc.bad && (!reflect.DeepEqual(got, tc.want) || (got == nil) != (tc.want == nil)) {
			t.Errorf("splitTexts(%s) = %q, %v; want %q (an error: %v)", tc.list, got, err, tc.want, tc.bad)
		}
	}
}

// FuzzSplitTexts: any list of texts written as a JSON array comes back
// exactly, no text, however broken, makes splitTexts panic, and on the
// texts SQLite writes it accepts nothing encoding/json refuses and reads
// what it reads (null as nil, [] as empty).
func FuzzSplitTexts(f *testing.F) {
	f.Add("a", "b\\\"c", `["x","y"]`)
	f.Add("\u00e9\x01", "😀", `["a",1]`)
	f.Add("", "</>&\u2028", `["\ud83d`)
	f.Fuzz(func(t *testing.T, a, b string, raw string) {
		// SQLite's json_array writes valid UTF-8 and escapes control
		// characters; on such texts splitTexts reads what encoding/json
		// reads.
		oracle := utf8.ValidString(raw) && !strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 })
		if got, err := splitTexts(raw); err == nil && oracle {
			var want []string
			if json.Unmarshal([]byte(raw), &want) != nil || (want == nil) != (got == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("splitTexts(%q) = %q, but encoding/json reads %q", raw, got, want)
			}
		}
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		list, err := json.Marshal([]string{a, b})
		if err != nil {
			t.Fatal(err)
		}
		got, err := splitTexts(string(list))
		if err != nil || !reflect.DeepEqual(got, []string{a, b}) {
			t.Fatalf("splitTexts(%s) = %q, %v", list, got, err)
		}
	})
}
