package views

import (
	"fmt"
	"io"

	"github.com/aymanbagabas/go-udiff"
	"github.com/hashicorp/hcl/v2"
)

// Fmt is the view of `leadsync fmt`: the files it changed (and their
// diffs) on Out, what it could not format on ErrOut.
type Fmt struct {
	out, errOut io.Writer
	colorErr    bool
}

// NewFmt returns the view of fmt; colorErr paints the diagnostics.
func NewFmt(out, errOut io.Writer, colorErr bool) Fmt { return Fmt{out, errOut, colorErr} }

// Changed names a file fmt rewrote (or, with --check, would rewrite).
func (v Fmt) Changed(name string) { fmt.Fprintln(v.out, name) }

// Diff prints the change of the file name from a to b (--diff).
func (v Fmt) Diff(name string, a, b []byte) error { return UnifiedDiff(v.out, name, a, b) }

// Formatted writes formatted standard input.
func (v Fmt) Formatted(src []byte) error {
	_, err := v.out.Write(src)
	return err
}

// Invalid shows why the file name, holding src, cannot be formatted.
func (v Fmt) Invalid(name string, src []byte, diags hcl.Diagnostics) {
	Diagnostics(v.errOut, map[string]*hcl.File{name: {Bytes: src}}, diags, v.colorErr)
}

// Failed says a file could not be read, written or diffed.
func (v Fmt) Failed(err error) { fmt.Fprintf(v.errOut, "Error: %v\n", err) }

// UnifiedDiff prints the change from a to b as a unified diff with
// three lines of context. The diff is go-udiff's (gopls's line diff): it
// is linear in practice, where a longest-common-subsequence table was
// quadratic in the number of lines.
func UnifiedDiff(w io.Writer, name string, a, b []byte) error {
	before, after := string(a), string(b)
	d, err := udiff.ToUnified("old/"+name, "new/"+name, before, udiff.Lines(before, after), udiff.DefaultContextLines)
	if err != nil {
		return fmt.Errorf("cannot compute the diff of %s: %w", name, err)
	}
	_, err = io.WriteString(w, d)
	return err
}
