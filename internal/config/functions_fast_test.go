package config

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// The fast toset/tolist must give exactly what the general conversion
// gives, on the fast path and off it.
func TestFastCollectionMatchesStdlib(t *testing.T) {
	inputs := map[string]cty.Value{
		"strings":          cty.TupleVal([]cty.Value{cty.StringVal("b"), cty.StringVal("a"), cty.StringVal("b")}),
		"numbers":          cty.TupleVal([]cty.Value{cty.NumberIntVal(2), cty.NumberIntVal(1)}),
		"bools":            cty.TupleVal([]cty.Value{cty.True, cty.False}),
		"mixed":            cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1)}),
		"with null":        cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)}),
		"with unknown":     cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String)}),
		"marked element":   cty.TupleVal([]cty.Value{cty.StringVal("a").Mark("sensitive"), cty.StringVal("b")}),
		"empty":            cty.EmptyTupleVal,
		"list":             cty.ListVal([]cty.Value{cty.StringVal("x")}),
		"objects":          cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("1")})}),
		"unknown tuple":    cty.UnknownVal(cty.Tuple([]cty.Type{cty.String})),
		"null tuple":       cty.NullVal(cty.Tuple([]cty.Type{cty.String})),
		"nested tuples":    cty.TupleVal([]cty.Value{cty.TupleVal([]cty.Value{cty.StringVal("a")})}),
		"single string":    cty.TupleVal([]cty.Value{cty.StringVal("only")}),
		"dynamic unknown":  cty.DynamicVal,
		"string not tuple": cty.StringVal("x"),
	}
	for _, set := range []bool{true, false} {
		fast := fastCollectionFunc(set)
		general := stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType))
		if set {
			general = stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType))
		}
		for name, in := range inputs {
			got, gotErr := fast.Call([]cty.Value{in})
			want, wantErr := general.Call([]cty.Value{in})
			if (gotErr != nil) != (wantErr != nil) {
				t.Errorf("set=%v %s: error %v, general gives %v", set, name, gotErr, wantErr)
				continue
			}
			if gotErr == nil && !got.RawEquals(want) {
				t.Errorf("set=%v %s: got %#v, general gives %#v", set, name, got, want)
			}
		}
	}
}
