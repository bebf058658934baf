package views

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestUnifiedDiffLargeFile: one line changed in a long file gives one small
// hunk (the former table fell back to deleting and re-adding every line
// past a size limit).
func TestUnifiedDiffLargeFile(t *testing.T) {
	var a strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "line %d\n", i)
	}
	before := a.String()
	after := strings.Replace(before, "line 10000\n", "line ten thousand\n", 1)
	var out bytes.Buffer
	if err := UnifiedDiff(&out, "big.leads.hcl", []byte(before), []byte(after)); err != nil {
		t.Fatal(err)
	}
	want := `--- old/big.leads.hcl
+++ new/big.leads.hcl
@@ -9998,7 +9998,7 @@
 line 9997
 line 9998
 line 9999
-line 10000
+line ten thousand
 line 10001
 line 10002
 line 10003
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestUnifiedDiffNoFinalNewline: a file without a final newline is shown as
// such, as diff -u does, so the diff applies with patch.
func TestUnifiedDiffNoFinalNewline(t *testing.T) {
	var out bytes.Buffer
	if err := UnifiedDiff(&out, "a.leads.hcl", []byte("a=1"), []byte("a = 1\n")); err != nil {
		t.Fatal(err)
	}
	want := "--- old/a.leads.hcl\n+++ new/a.leads.hcl\n@@ -1 +1 @@\n-a=1\n\\ No newline at end of file\n+a = 1\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestDiffLines(t *testing.T) {
	a := strings.Split("a b c d e f g h i j k l m n", " ")
	b := strings.Split("a b X d e f g h i j k l m Y n", " ")
	var buf bytes.Buffer
	UnifiedDiff(&buf, "f", []byte(strings.Join(a, "\n")+"\n"), []byte(strings.Join(b, "\n")+"\n"))
	want := "--- old/f\n+++ new/f\n@@ -1,6 +1,6 @@\n a\n b\n-c\n+X\n d\n e\n f\n@@ -11,4 +11,5 @@\n k\n l\n m\n+Y\n n\n"
	if buf.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
	}
}
