package config

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// forEachConfig is a configuration whose one search block has n for_each
// instances, from a variable of n cities (the path that took quadratic
// time: 20,000 cities 3 s, 100,000 a minute).
func forEachConfig(n int) fstest.MapFS {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", fmt.Sprintf("city%06d", i))
	}
	src := `variable "cities" {
  type    = list(string)
  default = [` + b.String() + `]
}

api {
  sandbox = true
}

search "cto" {
  for_each = toset(var.cities)
  keywords = "CTO"
  city     = each.value
}
`
	return fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}}
}

// TestForEachExpansionIsLinear counts, rather than times, what makes the
// expansion of for_each quadratic: cty's conversion of a whole collection
// (it unifies the types of all elements by comparing them with each
// other). Loading 8,000 instances from a variable's list hands cty no
// collection at all: each element is converted on its own. The times
// are in docs/performance.md (BenchmarkLoadForEach).
func TestForEachExpansionIsLinear(t *testing.T) {
	largest := 0
	defer func(c func(cty.Value, cty.Type) (cty.Value, error)) { ctyConvert = c }(ctyConvert)
	ctyConvert = func(v cty.Value, want cty.Type) (cty.Value, error) {
		if ty := v.Type(); v.IsKnown() && !v.IsNull() && (ty.IsTupleType() || ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsObjectType()) {
			largest = max(largest, v.LengthInt())
		}
		return convert.Convert(v, want)
	}
	const n = 8000
	cfg, diags := Load(LoadOptions{Dir: "/cfg", FS: forEachConfig(n)})
	if diags.HasErrors() || len(cfg.Searches) != n {
		t.Fatalf("%d searches: %s", len(cfg.Searches), diags.Error())
	}
	if largest > 0 {
		t.Errorf("cty converted a collection of %d elements at once: quadratic in its length", largest)
	}
}

// TestConvertLinearIsConvert: the linear conversion gives what cty's
// does, errors included.
func TestConvertLinearIsConvert(t *testing.T) {
	str := func(ss ...string) cty.Value {
		var vs []cty.Value
		for _, s := range ss {
			vs = append(vs, cty.StringVal(s))
		}
		return cty.TupleVal(vs)
	}
	for _, tc := range []struct {
		name string
		val  cty.Value
		want cty.Type
	}{
		{"tuple to list", str("a", "b", "a"), cty.List(cty.String)},
		{"tuple to set", str("a", "b", "a"), cty.Set(cty.String)},
		{"numbers to strings", cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("x")}), cty.List(cty.String)},
		{"object to map", cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.NumberIntVal(2)}), cty.Map(cty.String)},
		{"nested", cty.TupleVal([]cty.Value{str("a"), str("b", "c")}), cty.List(cty.List(cty.String))},
		{"objects", cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"n": cty.StringVal("x")})}), cty.List(cty.Object(map[string]cty.Type{"n": cty.String}))},
		{"empty", cty.EmptyTupleVal, cty.List(cty.String)},
		{"null element", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)}), cty.List(cty.String)},
		{"wrong element", cty.TupleVal([]cty.Value{cty.StringVal("a"), str("b")}), cty.List(cty.String)},
		{"to any", str("a", "b"), cty.List(cty.DynamicPseudoType)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gerr := convertLinear(tc.val, tc.want)
			want, werr := convert.Convert(tc.val, tc.want)
			if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("error %v, cty's %v", gerr, werr)
			}
			if gerr == nil && !got.RawEquals(want) {
				t.Errorf("got %#v, cty's %#v", got, want)
			}
		})
	}
}

// BenchmarkLoadForEach loads a configuration of one search block with n
// for_each instances from a variable's list (docs/performance.md):
//
//	go test ./internal/config -run '^$' -bench LoadForEach -benchmem
func BenchmarkLoadForEach(b *testing.B) {
	for _, n := range []int{1000, 4000, 10000} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			fsys := forEachConfig(n)
			b.ReportAllocs()
			for b.Loop() {
				cfg, diags := Load(LoadOptions{Dir: "/cfg", FS: fsys})
				if diags.HasErrors() || len(cfg.Searches) != n {
					b.Fatal(diags.Error())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/instance")
		})
	}
}

// TestConfigurationSizeLimit: configuration files of more than
// MaxConfigBytes together, and a variables file that large, are refused
// before they are parsed, with one error that names the sizes and the
// limit. (A 50 MB configuration of 500,000 blocks took 5.1 GB to read.)
func TestConfigurationSizeLimit(t *testing.T) {
	block := "locals {}\n"
	big := strings.Repeat(block, MaxConfigBytes/len(block)/2+1)
	small := "api {\n  sandbox = true\n}\n"
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"two files over the limit together", fstest.MapFS{
			"a.leads.hcl": {Data: []byte(small + big)},
			"b.leads.hcl": {Data: []byte(big)},
		}, "The configuration files hold 2.1 MB (a.leads.hcl alone 1.1 MB); leadsync reads at most 2 MB of them"},
		{"a variables file", fstest.MapFS{
			"main.leads.hcl":        {Data: []byte(small)},
			"big.auto.leadvars.hcl": {Data: []byte(strings.Repeat("# a comment line\n", MaxConfigBytes/17+1))},
		}, "big.auto.leadvars.hcl holds 2.1 MB; a variables file may hold at most 2 MB."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Load(LoadOptions{Dir: "/cfg", FS: tc.fsys})
			if len(diags) != 1 || !strings.Contains(diags[0].Detail, tc.want) {
				t.Fatalf("diagnostics %v, want one saying %q", diags, tc.want)
			}
		})
	}
}
