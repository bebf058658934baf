package views

import (
	"fmt"
	"testing"
)

func TestWrapValues(t *testing.T) {
	got := wrapValues([]string{"a", "bb", "a very long value that is longer than the width"}, 10)
	want := []string{`"a", "bb",`, `"a very long value that is longer than the width"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if wrapValues(nil, 10) != nil {
		t.Error("no values: lines")
	}
}

// TestWrapValuesWide: wide characters take two columns each.
func TestWrapValuesWide(t *testing.T) {
	got := wrapValues([]string{"日本", "東京"}, 12)
	want := []string{`"日本",`, `"東京"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
