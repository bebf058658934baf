package sqlstate

import (
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// FuzzPackList: a list packed from a row (packList) holds what splitTexts
// reads of the same text, or both refuse it; NULL and null are the empty
// list. The list keeps no part of the row's string.
func FuzzPackList(f *testing.F) {
	f.Add("a", "b\\\"c", `["x","y"]`)
	f.Add("11791000.00000", "", ` [ "a" , "b" ] `)
	f.Add("\u00e9\x01", "😀", `["a",1]`)
	f.Add("", "</>&\u2028", `null`)
	f.Add("x", "y", `["a"]x`)
	f.Fuzz(func(t *testing.T, a, b string, raw string) {
		samePacked(t, raw)
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		list, err := json.Marshal([]string{a, b, a + b})
		if err != nil {
			t.Fatal(err)
		}
		if got := samePacked(t, string(list)); !slices.Equal(got, []string{a, b, a + b}) {
			t.Fatalf("packList(%s) = %q", list, got)
		}
	})
}

// samePacked packs raw as the row of a list and checks it against
// splitTexts; it returns the IDs.
func samePacked(t *testing.T, raw string) []string {
	t.Helper()
	got, err := packList(sql.NullString{String: raw, Valid: true})
	want, wantErr := splitTexts(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("packList(%q): %v, splitTexts: %v", raw, err, wantErr)
	}
	if err != nil {
		return nil
	}
	if !got.Packed() || !slices.Equal(got.Strings(), want) && len(want)+got.Len() > 0 {
		t.Fatalf("packList(%q) = %q (packed %v), splitTexts %q", raw, got.Strings(), got.Packed(), want)
	}
	for _, id := range got.Strings() {
		if inside(id, raw) {
			t.Fatalf("packList(%q) keeps a part of the row: %q", raw, id)
		}
	}
	return got.Strings()
}

// TestPackListOfNull: NULL is the empty list, packed.
func TestPackListOfNull(t *testing.T) {
	if l, err := packList(sql.NullString{}); err != nil || !l.Packed() || l.Len() != 0 {
		t.Fatalf("packList(NULL) = %q (packed %v), %v", l.Strings(), l.Packed(), err)
	}
}

// inside reports whether part's bytes are some of whole's.
func inside(part, whole string) bool {
	if len(part) == 0 || len(whole) == 0 {
		return false
	}
	p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
	return p >= w && p < w+uintptr(len(whole))
}
