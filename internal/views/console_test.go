package views

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/run"
)

func TestFormatValue(t *testing.T) {
	strList := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})
	cases := []struct {
		name string
		v    cty.Value
		want string
	}{
		{"string", cty.StringVal(`say "hi"`), `"say \"hi\""`},
		{"number", cty.NumberFloatVal(1.5), "1.5"},
		{"big number", cty.NumberIntVal(10000000), "10000000"},
		{"bool", cty.False, "false"},
		{"null", cty.NullVal(cty.DynamicPseudoType), "null"},
		{"typed null", cty.NullVal(cty.String), "tostring(null)"},
		{"null list", cty.NullVal(cty.List(cty.String)), "tolist(null) /* of string */"},
		{"null object", cty.NullVal(cty.Object(map[string]cty.Type{"a": cty.Number})), "null /* object */"},
		{"unknown", cty.UnknownVal(cty.String), "(not known)"},
		{"sensitive", cty.StringVal("secret").Mark("sensitive"), "(sensitive value)"},
		{"tuple", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1)}), "[\n  \"a\",\n  1,\n]"},
		{"empty tuple", cty.EmptyTupleVal, "[]"},
		{"list", strList, "tolist([\n  \"a\",\n  \"b\",\n])"},
		{"set", cty.SetVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a")}), "toset([\n  \"a\",\n  \"b\",\n])"},
		{"empty set", cty.SetValEmpty(cty.String), "toset([])"},
		{"map", cty.MapVal(map[string]cty.Value{"de": cty.StringVal("Berlin")}), "tomap({\n  \"de\" = \"Berlin\"\n})"},
		{"empty object", cty.EmptyObjectVal, "{}"},
		{"nested", cty.ObjectVal(map[string]cty.Value{"cities": strList, "key": cty.StringVal("x").Mark("sensitive")}),
			"{\n  \"cities\" = tolist([\n    \"a\",\n    \"b\",\n  ])\n  \"key\" = (sensitive value)\n}"},
		{"lines", cty.StringVal("one\ntwo"), "<<EOT\none\ntwo\nEOT"},
		{"lines holding EOT", cty.StringVal("EOT\ntwo"), "<<EOT_\nEOT\ntwo\nEOT_"},
		{"lines in an object", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("one\ntwo")}), "{\n  \"a\" = <<-EOT\n  one\n  two\n  EOT\n}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FormatValue(c.v, 0); got != c.want {
				t.Errorf("FormatValue =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestConsoleView renders what the console shows of each kind of line:
// the golden file is what a person reads.
func TestConsoleView(t *testing.T) {
	var out, prompt bytes.Buffer
	v := NewConsole(&out, &prompt, func(d hcl.Diagnostics, line string, n int) {
		fmt.Fprintf(&out, "[%d diagnostics on line %d: %q]\n", len(d), n, line)
	})
	v.Prompt()
	v.Value(cty.ObjectVal(map[string]cty.Value{"address": cty.StringVal(`search.cto["Berlin"]`), "people": cty.NumberIntVal(3)}))
	v.Selected(run.Selection{Of: 1234, People: []run.SelectedPerson{{ID: "10001823.bfb1f808", Name: "Marie Wagner"}, {ID: "7", Name: "Jörg Weiß"}, {ID: "8"}}})
	v.Selected(run.Selection{Of: 1, People: []run.SelectedPerson{}})
	v.Diagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "x"}}, "local.nope", 3)
	v.Help()
	if prompt.String() != "> " {
		t.Errorf("prompt %q", prompt.String())
	}
	golden.Check(t, filepath.Join("testdata", "console.txt"), out.Bytes())
}
