package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Console is the view of leadsync console: one result per line typed.
type Console interface {
	Result(r run.ConsoleResult)
}

// NewConsole returns the view of console writing results to w and errors
// to errOut.
func NewConsole(w, errOut io.Writer) Console { return consoleHuman{w, errOut} }

type consoleHuman struct{ w, errOut io.Writer }

// Result prints a value as HCL writes it ("(sensitive value)" for a
// sensitive one), a where's count with the first people, or the error.
func (v consoleHuman) Result(r run.ConsoleResult) {
	switch {
	case r.Diags.HasErrors():
		for _, d := range r.Diags.Errs() {
			fmt.Fprintf(v.errOut, "Error: %s\n", d.Error())
		}
	case r.Err != nil:
		fmt.Fprintf(v.errOut, "Error: %v\n", r.Err)
	case r.Where:
		line := fmt.Sprintf("%s of %s pass", textfmt.Thousands(r.Matched), textfmt.Plural(r.Total, "person"))
		if len(r.Names) > 0 {
			more := ""
			if r.Matched > len(r.Names) {
				more = ", ..."
			}
			line += ": " + strings.Join(r.Names, ", ") + more
		}
		fmt.Fprintln(v.w, line)
	case r.Value.ContainsMarked():
		fmt.Fprintln(v.w, "(sensitive value)")
	case !r.Value.IsWhollyKnown():
		fmt.Fprintln(v.w, "(not known until a run)")
	default:
		fmt.Fprintln(v.w, strings.TrimSpace(string(hclwrite.TokensForValue(r.Value).Bytes())))
	}
}
