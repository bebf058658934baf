package config

import (
	"github.com/hashicorp/hcl/v2"
)

var outputSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "value"}, {Name: "description"},
}}

// outputRefs are what an output's value may list: the module's searches,
// profiles and enrich blocks (and the outputs of its own module calls that
// give them).
var outputRefs = refList{attr: "value", kinds: []string{"search", "profile", "enrich"}}

// decodeOutputs reads the output blocks of l's module: each exposes some
// of the module's blocks to the caller, which refers to them as
// module.NAME.OUTPUT (from = [module.dach.ctos]). The root's outputs are
// checked the same way; nothing calls the root, so they give nothing.
func (l *loader) decodeOutputs(blocks hcl.Blocks) {
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		if !l.uniqueName(b, seen) {
			continue
		}
		content, meant := l.content(b, outputSchema, "An output block")
		if a := content.Attributes["description"]; a != nil {
			l.literalString(a)
		}
		a := content.Attributes["value"]
		if a == nil {
			if !meant["value"] {
				l.errorf(b.DefRange.Ptr(), "Missing value", "An output needs value, the blocks of the module it gives to the caller, like value = [search.cto].")
			}
			continue
		}
		if addrs, ok := l.refs(a, outputRefs); ok {
			l.outputs[b.Labels[0]] = addrs
		}
	}
}
