package sqlstate

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"
)

// within reports whether every non-empty text of ids lies in the bytes
// of s, one after the other when s holds nothing else.
func within(ids []string, s string) bool {
	lo := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	hi := lo + uintptr(len(s))
	for _, id := range ids {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(id))); id != "" && (p < lo || p+uintptr(len(id)) > hi) {
			return false
		}
	}
	return true
}

// joined is the texts of ids, one after the other, as one string when
// they lie so in memory ("" otherwise).
func joined(ids []string) string {
	var first *byte
	n := 0
	for _, id := range ids {
		if id == "" {
			continue
		}
		if first == nil {
			first = unsafe.StringData(id)
		} else if unsafe.StringData(id) != (*byte)(unsafe.Add(unsafe.Pointer(first), n)) {
			return ""
		}
		n += len(id)
	}
	if first == nil {
		return ""
	}
	return unsafe.String(first, n)
}

// A list's texts share one string: parts of the list when it holds no
// escape, else of one string of the unescaped texts (a lead list of 300
// escaped IDs is one allocation for the texts, not 300), and reading a
// plain list allocates its slice only.
func TestSplitTextsShareOneString(t *testing.T) {
	plain := make([]string, 300)
	escaped := make([]string, 300)
	for i := range plain {
		plain[i] = fmt.Sprintf("%d.%016x", 100000+i, i)
		escaped[i] = plain[i]
		if i%3 == 0 {
			escaped[i] = fmt.Sprintf(`%s"<&>\%d`, plain[i], i)
		}
	}
	for _, tc := range []struct {
		ids    []string
		plain  bool // the texts are parts of the list
		joined bool // the texts lie one after the other, one string
	}{
		{ids: plain, plain: true},
		{ids: escaped, joined: true},
		{ids: []string{"", `"`, "", "x\u2028", "<&>"}, joined: true},
	} {
		list := string(must(json.Marshal(tc.ids)))
		got, err := splitTexts(list)
		if err != nil || len(got) != len(tc.ids) {
			t.Fatalf("splitTexts(%.60s…) = %d texts, %v", list, len(got), err)
		}
		for i := range tc.ids {
			if got[i] != tc.ids[i] {
				t.Fatalf("text %d is %q, want %q", i, got[i], tc.ids[i])
			}
		}
		if tc.plain && !within(got, list) {
			t.Errorf("the texts of %.60s… are not parts of it", list)
		}
		if tc.joined && (joined(got) == "" || within(got, list)) {
			t.Errorf("the unescaped texts of %.60s… are not one string of their own", list)
		}
	}
	list := string(must(json.Marshal(plain)))
	if n := testing.AllocsPerRun(10, func() { _, _ = splitTexts(list) }); n != 1 {
		t.Errorf("reading a plain list of 300 texts allocates %v times, want 1 (its slice)", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
