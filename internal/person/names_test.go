package person

import "testing"

func TestSplitFullName(t *testing.T) {
	for _, c := range []struct{ full, first, last string }{
		{"Ana Silva", "Ana", "Silva"},
		{"Maria de la Cruz", "Maria de la", "Cruz"}, // a guess: wrong for multi-word surnames
		{"Jürgen von Bülow", "Jürgen von", "Bülow"},
		{"王伟", "王伟", ""}, // no space: all first name
		{"Cher", "Cher", ""},
		{"  Ana   Silva  ", "Ana", "Silva"},
		{"Ana\u00a0Silva", "Ana", "Silva"}, // a no-break space is a space
		{"", "", ""},
	} {
		first, last := SplitFullName(c.full)
		if first != c.first || last != c.last {
			t.Errorf("SplitFullName(%q) = %q, %q; want %q, %q", c.full, first, last, c.first, c.last)
		}
	}
}
