package sqlstate

import (
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzPackList: a list packed from a row's bytes (packList) holds what
// splitTexts reads of the same text, or both refuse it; null is the empty
// list. The bytes are the driver's, reused for the next row: the list
// packed keeps none of them.
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
// splitTexts, with the row's bytes overwritten after; it returns the IDs.
func samePacked(t *testing.T, raw string) []string {
	t.Helper()
	row := []byte(raw)
	got, err := packList(row)
	want, wantErr := splitTexts(raw)
	if raw == "" {
		want, wantErr = nil, nil // NULL: database/sql gives no bytes
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("packList(%q): %v, splitTexts: %v", raw, err, wantErr)
	}
	if err != nil {
		return nil
	}
	for i := range row {
		row[i] = '#'
	}
	if !got.Packed() || !slices.Equal(got.Strings(), want) && len(want)+got.Len() > 0 {
		t.Fatalf("packList(%q) = %q (packed %v), splitTexts %q", raw, got.Strings(), got.Packed(), want)
	}
	return got.Strings()
}
