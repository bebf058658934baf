package views

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Console is the view of leadsync console: values in the language's own
// syntax on out, the prompt on prompt (a terminal only), diagnostics
// through diags (cli renders them, with the line as their snippet).
type Console struct {
	out, prompt io.Writer
	diags       func(diags hcl.Diagnostics, line string, n int)
}

var _ run.ConsoleView = (*Console)(nil)

// NewConsole returns the console's view.
func NewConsole(out, prompt io.Writer, diags func(hcl.Diagnostics, string, int)) *Console {
	return &Console{out: out, prompt: prompt, diags: diags}
}

// Prompt shows "> ".
func (c *Console) Prompt() { fmt.Fprint(c.prompt, "> ") }

// Value prints v as FormatValue does.
func (c *Console) Value(v cty.Value) { fmt.Fprintln(c.out, FormatValue(v, 0)) }

// Diagnostics hands the problems of a line to the renderer.
func (c *Console) Diagnostics(diags hcl.Diagnostics, line string, n int) {
	c.diags(diags, line, n)
}

// Selected prints how many people a where selects, then each as
// person.<id> and their name.
func (c *Console) Selected(sel run.Selection) {
	n := len(sel.People)
	if n == 0 {
		fmt.Fprintf(c.out, "0 of %s selected.\n", textfmt.Plural(sel.Of, "person"))
		return
	}
	fmt.Fprintf(c.out, "%s of %s selected:\n", textfmt.Thousands(n), textfmt.Plural(sel.Of, "person"))
	width := 0
	for _, p := range sel.People {
		width = max(width, textfmt.Width("person."+p.ID))
	}
	for _, p := range sel.People {
		addr := "person." + p.ID
		if p.Name == "" {
			fmt.Fprintf(c.out, "  %s\n", addr)
			continue
		}
		fmt.Fprintf(c.out, "  %s%s  %s\n", addr, strings.Repeat(" ", width-textfmt.Width(addr)), p.Name)
	}
}

// Help says what a line may be.
func (c *Console) Help() {
	fmt.Fprint(c.out, `Type an expression to see its value, as the configuration would compute it:
  local.cities, var.market, upper("cto"), [for c in local.cities : lower(c)]
  search.cto (its instances: address, request, people found), keys(search.cto)
  module.dach["de"].search.cto (a module instance's blocks), keys(module.dach)
where EXPR lists the people of the state EXPR selects, reading person.<field>
as a sheet's where does, or lead.<field> as an enrich block's:
  where person.validationStatus == "valid"
  where lead.title == "CTO"
exit (or the end of the input) leaves the console.
`)
}

// FormatValue writes v in the configuration language's own syntax, as
// terraform console does: a list, set or map says its type (tolist,
// toset, tomap), a typed null too, a text of several lines is a heredoc,
// and a sensitive value is "(sensitive value)".
func FormatValue(v cty.Value, indent int) string {
	switch {
	case v.IsMarked():
		return "(sensitive value)"
	case !v.IsKnown():
		return "(not known)"
	case v.IsNull():
		return formatNull(v.Type())
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return formatString(v.AsString(), indent)
	case ty == cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case ty == cty.Bool:
		return strconv.FormatBool(v.True())
	case ty.IsObjectType():
		return formatMapping(v, indent)
	case ty.IsMapType():
		return "tomap(" + formatMapping(v, indent) + ")"
	case ty.IsTupleType():
		return formatSequence(v, indent)
	case ty.IsListType():
		return "tolist(" + formatSequence(v, indent) + ")"
	case ty.IsSetType():
		return "toset(" + formatSequence(v, indent) + ")"
	}
	return ty.FriendlyName()
}

// formatNull is a null of type ty, with the conversion that gives it.
func formatNull(ty cty.Type) string {
	switch {
	case ty == cty.DynamicPseudoType:
		return "null"
	case ty == cty.String:
		return "tostring(null)"
	case ty == cty.Number:
		return "tonumber(null)"
	case ty == cty.Bool:
		return "tobool(null)"
	case ty.IsListType():
		return "tolist(null) /* of " + ty.ElementType().FriendlyName() + " */"
	case ty.IsSetType():
		return "toset(null) /* of " + ty.ElementType().FriendlyName() + " */"
	case ty.IsMapType():
		return "tomap(null) /* of " + ty.ElementType().FriendlyName() + " */"
	}
	return "null /* " + ty.FriendlyName() + " */"
}

// formatString quotes s, or writes it as a heredoc when it has several
// lines (<<- inside a collection, with a delimiter no line equals).
func formatString(s string, indent int) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return strconv.Quote(s)
	}
	delim := "EOT"
	for taken := true; taken; {
		taken = false
		for _, l := range lines {
			if strings.TrimSpace(l) == delim {
				delim += "_"
				taken = true
				break
			}
		}
	}
	var b strings.Builder
	if indent > 0 {
		b.WriteString("<<-")
	} else {
		b.WriteString("<<")
	}
	b.WriteString(delim)
	pad := strings.Repeat(" ", indent)
	for _, l := range lines {
		b.WriteString("\n" + pad + l)
	}
	b.WriteString("\n" + pad + delim)
	return b.String()
}

// formatMapping writes an object or a map, one key per line.
func formatMapping(v cty.Value, indent int) string { return formatElements(v, indent, true) }

// formatSequence writes a tuple, list or set, one element per line.
func formatSequence(v cty.Value, indent int) string { return formatElements(v, indent, false) }

// formatElements writes v's elements one per line: a mapping's as
// `"key" = value` between braces, a sequence's as `value,` between
// brackets.
func formatElements(v cty.Value, indent int, mapping bool) string {
	open, end := "[", "]"
	if mapping {
		open, end = "{", "}"
	}
	if v.LengthInt() == 0 {
		return open + end
	}
	var b strings.Builder
	b.WriteString(open)
	pad := strings.Repeat(" ", indent+2)
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if mapping {
			b.WriteString("\n" + pad + strconv.Quote(k.AsString()) + " = " + FormatValue(e, indent+2))
		} else {
			b.WriteString("\n" + pad + FormatValue(e, indent+2) + ",")
		}
	}
	b.WriteString("\n" + strings.Repeat(" ", indent) + end)
	return b.String()
}

// ConsoleConfigErrors follows the configuration's errors when the console
// cannot start: it evaluates the configuration as it is loaded.
func ConsoleConfigErrors(w io.Writer) {
	fmt.Fprintln(w, "The console evaluates the configuration as it is loaded: fix the errors above first.")
}
