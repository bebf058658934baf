package sqlstate

import (
	"database/sql"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/leadsync/leadsync/internal/state"
)

// FuzzPackList: a list packed from a row (packList) holds what splitTexts
// reads of the same text, or both refuse it; NULL and null are the empty
// list. The list keeps no part of the row's string. Both rows are packed
// into the same slabs, as one read packs its lists: the first list still
// holds its IDs once the second is packed.
func FuzzPackList(f *testing.F) {
	f.Add("a", "b\\\"c", `["x","y"]`)
	f.Add("11791000.00000", "", ` [ "a" , "b" ] `)
	f.Add("\u00e9\x01", "😀", `["a",1]`)
	f.Add("", "</>&\u2028", `null`)
	f.Add("x", "y", `["a"]x`)
	f.Add("abc", "def", `["ab","cd"]`)
	f.Fuzz(func(t *testing.T, a, b string, raw string) {
		var lp state.ListPacker
		first, want := samePacked(t, &lp, raw)
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		list, err := json.Marshal([]string{a, b, a + b})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := samePacked(t, &lp, string(list)); !slices.Equal(got.Strings(), []string{a, b, a + b}) {
			t.Fatalf("packList(%s) = %q", list, got.Strings())
		}
		if !slices.Equal(first.Strings(), want) && first.Len()+len(want) > 0 {
			t.Fatalf("packList(%q) = %q once the next list is packed, want %q", raw, first.Strings(), want)
		}
	})
}

// samePacked packs raw as the row of a list into lp and checks it against
// splitTexts; it returns the list and what splitTexts reads.
func samePacked(t *testing.T, lp *state.ListPacker, raw string) (state.IDList, []string) {
	t.Helper()
	got, err := packList(lp, sql.NullString{String: raw, Valid: true})
	want, wantErr := splitTexts(raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("packList(%q): %v, splitTexts: %v", raw, err, wantErr)
	}
	if err != nil {
		return got, nil
	}
	if !got.Packed() || !slices.Equal(got.Strings(), want) && len(want)+got.Len() > 0 {
		t.Fatalf("packList(%q) = %q (packed %v), splitTexts %q", raw, got.Strings(), got.Packed(), want)
	}
	for _, id := range got.Strings() {
		if inside(id, raw) {
			t.Fatalf("packList(%q) keeps a part of the row: %q", raw, id)
		}
	}
	return got, want
}

// TestPackListOfNull: NULL is the empty list, packed.
func TestPackListOfNull(t *testing.T) {
	if l, err := packList(new(state.ListPacker), sql.NullString{}); err != nil || !l.Packed() || l.Len() != 0 {
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
