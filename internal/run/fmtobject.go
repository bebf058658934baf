package run

import (
	"bytes"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// hclwrite.Format indents and aligns, but keeps the items of an object
// where they are: columns = { a = "A", b = "B",\n c = "C" } stays two
// lines of several keys, the second indented as a block's attribute.
// terraform fmt's result, which people copy, is one key per line with
// the = signs aligned. objectsOnePerLine rewrites every object
// constructor written over several lines that way (hclwrite.Format then
// indents and aligns it); an object on one line stays as it is, and so
// does one holding a comment, which a rewrite could not keep in place.

// objectsOnePerLine returns src with each multi-line object of its
// attributes written one key per line. src parses (FormatSource checked).
func objectsOnePerLine(src []byte, name string) []byte {
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		return src
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return src
	}
	var edits []objectEdit
	collectObjectEdits(src, body, &edits)
	if len(edits) == 0 {
		return src
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// objectEdit replaces src[start:end] with text.
type objectEdit struct {
	start, end int
	text       string
}

// collectObjectEdits adds the edits of the attributes of body and of its
// blocks, nested ones included.
func collectObjectEdits(src []byte, body *hclsyntax.Body, edits *[]objectEdit) {
	for _, attr := range body.Attributes {
		obj, ok := attr.Expr.(*hclsyntax.ObjectConsExpr)
		if !ok || !multiLine(obj) || hasComment(src, obj.SrcRange) {
			continue
		}
		*edits = append(*edits, objectEdit{start: obj.SrcRange.Start.Byte, end: obj.SrcRange.End.Byte, text: objectText(src, obj)})
	}
	for _, b := range body.Blocks {
		collectObjectEdits(src, b.Body, edits)
	}
}

// objectText is obj with one item per line; an item's value that is
// itself a multi-line object is written the same way.
func objectText(src []byte, obj *hclsyntax.ObjectConsExpr) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, item := range obj.Items {
		b.WriteString(text(src, item.KeyExpr.Range()))
		b.WriteString(" = ")
		if inner, ok := item.ValueExpr.(*hclsyntax.ObjectConsExpr); ok && multiLine(inner) {
			b.WriteString(objectText(src, inner))
		} else {
			b.WriteString(text(src, item.ValueExpr.Range()))
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// multiLine reports whether obj, with at least one item, spans lines.
func multiLine(obj *hclsyntax.ObjectConsExpr) bool {
	return len(obj.Items) > 0 && obj.SrcRange.Start.Line != obj.SrcRange.End.Line
}

// hasComment reports whether src holds a comment within r.
func hasComment(src []byte, r hcl.Range) bool {
	toks, _ := hclsyntax.LexConfig(src[r.Start.Byte:r.End.Byte], r.Filename, r.Start)
	for _, t := range toks {
		if t.Type == hclsyntax.TokenComment {
			return true
		}
	}
	return false
}

// text is the source of r, without the spaces around it.
func text(src []byte, r hcl.Range) string {
	return string(bytes.TrimSpace(src[r.Start.Byte:r.End.Byte]))
}
