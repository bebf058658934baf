package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/kind"
)

var exportSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "path"}, {Name: "for_each"}, {Name: "count"}, {Name: "allow_outside"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "sheet", LabelNames: []string{"name"}}},
}

var sheetSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "columns"}, {Name: "dedupe"}, {Name: "labels"}, {Name: "only_new"},
	{Name: "where"}, {Name: "changes"}, {Name: "since"},
}}

func (l *loader) decodeExport(b *hcl.Block, paths map[string]string) {
	content, ds := b.Body.Content(exportSchema)
	l.add(ds)
	l.noRepeat(content, "to write several files, write several export blocks.")
	x := &Export{Address: l.prefix + "export." + b.Labels[0], Addr: l.blockAddr(kind.Export, b.Labels[0], ""), Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange}
	if a := content.Attributes["path"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing path", "An export needs path, the file to write, like path = \"out/leads.xlsx\".")
	} else if p, _, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
		format, known := exportformat.ForPath(p)
		key := filepath.Clean(p)
		switch {
		case !known:
			l.errorf(a.Expr.Range().Ptr(), "Unsupported export format", "path must end in %s; %q does not.", exportformat.Extensions(), p)
		case strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) == "":
			l.errorf(a.Expr.Range().Ptr(), "Invalid path", "path needs a file name before the extension.")
		case paths[key] != "":
			l.errorf(a.Expr.Range().Ptr(), "Duplicate export path", "%s already writes %q; two exports would overwrite each other.", paths[key], p)
		default:
			paths[key] = x.Address
			x.Path, x.Format = p, format.Name
			x.PathRange = a.Expr.Range()
		}
	}
	l.decodeAllowOutside(x, content.Attributes["allow_outside"])
	sheets := content.Blocks.OfType("sheet")
	if len(sheets) == 0 {
		l.errorf(b.DefRange.Ptr(), "Export without sheets", "An export needs at least one sheet block, like sheet \"Leads\" { from = [search.cto] }.")
	}
	seen := map[string]hcl.Range{}
	for _, sb := range sheets {
		name := sb.Labels[0]
		if err := checkSheetName(name); err != nil {
			l.errorf(sb.LabelRanges[0].Ptr(), "Invalid sheet name", "%s.", err)
		} else if prev, dup := seen[strings.ToLower(name)]; dup {
			l.errorf(sb.LabelRanges[0].Ptr(), "Duplicate sheet name", "This export already has a sheet %q at %s (sheet names are compared ignoring case).", name, shortRange(prev))
		} else {
			seen[strings.ToLower(name)] = sb.DefRange
		}
		x.Sheets = append(x.Sheets, l.decodeSheet(sb))
	}
	l.cfg.Exports = append(l.cfg.Exports, x)
}

// checkSheetName applies the spreadsheet rules for sheet names.
func checkSheetName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("a sheet name must not be empty")
	case utf8.RuneCountInString(name) > 31:
		return fmt.Errorf("%q has %d characters; spreadsheets allow at most 31", name, utf8.RuneCountInString(name))
	case strings.ContainsAny(name, `[]:*?/\`):
		return fmt.Errorf("%q contains one of []:*?/\\, which spreadsheets forbid in sheet names", name)
	case strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'"):
		return fmt.Errorf("%q starts or ends with an apostrophe, which spreadsheets forbid", name)
	case strings.EqualFold(name, "History"):
		return fmt.Errorf("\"History\" is reserved by spreadsheet programs; choose another name")
	}
	return nil
}

func (l *loader) decodeSheet(b *hcl.Block) *Sheet {
	content, ds := b.Body.Content(sheetSchema)
	l.add(ds)
	s := &Sheet{Name: b.Labels[0], Columns: append([]string(nil), DefaultColumns...), Dedupe: true}
	at := content.Attributes
	if a := at["where"]; a != nil {
		s.Where, s.WhereFields = l.sheetWhere(a)
		s.ctx = l.base
	}
	if a := at["changes"]; a != nil {
		// A sheet of changes: one row per change, its own columns.
		l.changesSheet(s, content)
		return s
	}
	if a := at["since"]; a != nil {
		l.errorf(a.NameRange.Ptr(), "since without changes", "since limits the rows of a changes sheet (changes = [track.champions]) to the changes seen lately; this sheet lists people. Remove since, or make the sheet list changes.")
	}
	if a := at["from"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing from", "A sheet needs from, the searches and profiles whose people it lists, like from = [search.cto], or changes, the blocks whose changes it lists, like changes = [track.champions].")
	} else {
		s.From, _ = l.fromList(a)
	}
	if a := at["columns"]; a != nil {
		cols, rngs, _, astate := l.stringListAttr(a, l.base, scope{}, `["fullName", "email"]`)
		if astate == ok {
			known := append(append([]string{}, DefaultColumns...), ExtraColumns...)
			good := true
			seen := map[string]bool{}
			for i, c := range cols {
				switch {
				case !contains(known, c):
					good = false
					l.errorf(rngs[i].Ptr(), "Unknown column", "%q is not a column.%s", c, columnHint(c, known))
				case seen[c]:
					good = false
					l.errorf(rngs[i].Ptr(), "Duplicate column", "%q is listed twice.", c)
				}
				seen[c] = true
			}
			if len(cols) == 0 {
				good = false
				l.errorf(a.Expr.Range().Ptr(), "Empty columns", "columns must name at least one column; remove it to get the default columns.")
			}
			if good {
				s.Columns, s.columnRanges = cols, rngs
			}
		}
	}
	if v, astate := l.boolAttr(at["dedupe"], l.base, scope{}); astate == ok {
		s.Dedupe = v
	}
	if v, astate := l.boolAttr(at["only_new"], l.base, scope{}); astate == ok {
		s.OnlyNew = v
	}
	if a := at["labels"]; a != nil {
		s.Labels = l.sheetLabels(a, s.Columns)
	}
	return s
}

// sheetLabels evaluates labels = { column = "Header text", ... }: every key
// must be a known column and every value a non-empty string. A label for a
// column the sheet does not show is a warning (it has no effect).
func (l *loader) sheetLabels(a *hcl.Attribute, columns []string) map[string]string {
	v, _, astate := l.value(a, l.base, scope{})
	if astate != ok {
		return nil
	}
	ty := v.Type()
	if !(ty.IsObjectType() || ty.IsMapType()) {
		l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "labels takes an object of column names and header texts, like { email = \"Work e-mail\" }; got %s.", typeName(ty))
		return nil
	}
	// The source range of each key and value, when written literally.
	keyRng := map[string]hcl.Range{}
	valRng := map[string]hcl.Range{}
	if pairs, ds := hcl.ExprMap(a.Expr); !ds.HasErrors() {
		for _, p := range pairs {
			if k, kds := p.Key.Value(nil); !kds.HasErrors() && k.Type() == cty.String && k.IsKnown() && !k.IsNull() {
				keyRng[k.AsString()] = p.Key.Range()
				valRng[k.AsString()] = p.Value.Range()
			}
		}
	}
	rangeOf := func(m map[string]hcl.Range, k string) *hcl.Range {
		if r, found := m[k]; found {
			return r.Ptr()
		}
		return a.Expr.Range().Ptr()
	}
	known := append(append([]string{}, DefaultColumns...), ExtraColumns...)
	out := map[string]string{}
	good := true
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		name := k.AsString()
		if !contains(known, name) {
			good = false
			l.errorf(rangeOf(keyRng, name), "Unknown column", "labels names %q, which is not a column.%s", name, columnHint(name, known))
			continue
		}
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String {
			good = false
			l.errorf(rangeOf(valRng, name), "Incorrect value type", "The label of %s must be a string, like %s = %q; got %s.", name, name, ColumnLabels[name], typeDesc(e))
			continue
		}
		text := strings.TrimSpace(e.AsString())
		if text == "" {
			good = false
			l.errorf(rangeOf(valRng, name), "Empty label", "The label of %s is empty; a header needs text. Remove it for the default %q.", name, ColumnLabels[name])
			continue
		}
		if !contains(columns, name) {
			l.warnf(rangeOf(keyRng, name), "Label for a column the sheet does not show", "This sheet has no column %s, so its label is not used; add %s to columns or remove the label.", name, name)
		}
		out[name] = text
	}
	if !good {
		return nil
	}
	return out
}
