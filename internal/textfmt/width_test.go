package textfmt

import "testing"

func TestWidth(t *testing.T) {
	for s, want := range map[string]int{
		"":           0,
		"abc":        3,
		"Jürgen":     6,
		"日本語":        6,
		"🚀":          2,
		"e\u0301":    1, // e + combining acute
		"two\nlines": 3,
		"مريم":       4,
		"ｱｲｳ":        3, // half-width katakana
		"👩‍💻":        2, // a ZWJ sequence is one emoji
	} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestPadRight(t *testing.T) {
	for _, c := range []struct {
		s     string
		width int
		want  string
	}{
		{"ab", 4, "ab  "},
		{"日本", 6, "日本  "},
		{"abcdef", 3, "abcdef"},
	} {
		if got := PadRight(c.s, c.width); got != c.want {
			t.Errorf("PadRight(%q, %d) = %q, want %q", c.s, c.width, got, c.want)
		}
	}
}
