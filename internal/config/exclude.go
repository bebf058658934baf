package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/listfile"
)

// Exclude is an exclude block: the people a column of a list file names
// (customers, competitors, a do-not-contact list) are never enriched, and
// leave the exports.
type Exclude struct {
	Address string // exclude.customers
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr address.Address
	Name string
	ListFile
	// Column is the column read, as the file's header spells it.
	Column string
	// By is what the column holds, and so how it is matched.
	By listfile.Kind
	// Keys are the column's values, normalised by By's rules.
	Keys      *listfile.Set
	DeclRange hcl.Range
}

// BeforeSpending reports whether the block can act before anything is
// paid for: a company, a profile URL, a page name or a network ID is in
// every search result. An e-mail or a domain is known only once an import
// or an enrichment gave it (for a domain, also a colleague's).
func (x *Exclude) BeforeSpending() bool { return x.By != listfile.Email && x.By != listfile.Domain }

var excludeSchema = &hcl.BodySchema{Attributes: append([]hcl.AttributeSchema{
	{Name: "column"}, {Name: "by"}, {Name: "for_each"}, {Name: "count"},
}, listAttrs...)}

func (l *loader) decodeExclude(b *hcl.Block) {
	content, meant := l.content(b, excludeSchema, "An exclude block")
	l.noRepeat(content, "an exclude block reads one list. To exclude several lists, write an exclude block for each.")
	x := &Exclude{Address: l.prefix + "exclude." + b.Labels[0], Addr: l.blockAddr(kind.Exclude, b.Labels[0], ""), Name: b.Labels[0], DeclRange: b.DefRange}
	at := content.Attributes
	lf, good := l.decodeListFile(b, at, meant, "An exclude block")
	x.ListFile = lf
	switch a := at["column"]; {
	case a == nil && !meant["column"]:
		l.errorf(b.DefRange.Ptr(), "Missing column", "An exclude block needs column, the header of the column to read, like column = \"Company\".")
		good = false
	case a == nil:
		good = false
	default:
		s, _, st := l.stringAttr(a, l.base, scope{}, false)
		if st == ok && strings.TrimSpace(s) == "" {
			l.errorf(a.Expr.Range().Ptr(), "Empty column", "column is the header of the column to read, like \"Company\".")
			st = bad
		}
		x.Column, good = s, good && st == ok
	}
	if k, ok := l.listKind(b, at["by"], meant, "An exclude block needs by, what the column holds"); ok {
		x.By = k
	} else {
		good = false
	}
	if good && !l.opts.SkipListFiles {
		if t, ok := l.readList(&x.ListFile, []string{x.Column}); ok {
			x.Column = t.Columns[0]
			keys, err := listfile.KeySet(t, 0, x.By)
			if err != nil {
				l.listError(x.FileRange.Ptr(), err)
			}
			x.Keys = keys
			if err == nil && keys != nil && keys.Len() == 0 {
				// A header and no rows (or only empty cells): most likely
				// the wrong file, or an export that went wrong.
				l.warnf(x.FileRange.Ptr(), "Exclude list is empty",
					"%s: %s lists nobody (a header and no %s under column %q), so this block excludes nobody. Check that the file is the list you meant, or remove the block.",
					x.Address, x.File, x.By, x.Column)
			}
		}
	}
	if x.Keys == nil {
		x.Keys = listfile.NewSet(x.By)
	}
	l.cfg.Excludes = append(l.cfg.Excludes, x)
}

// listKind reads the by attribute: one of listfile's kinds.
func (l *loader) listKind(b *hcl.Block, a *hcl.Attribute, meant map[string]bool, missing string) (listfile.Kind, bool) {
	names := listfile.KindNames()
	if a == nil {
		if !meant["by"] {
			l.errorf(b.DefRange.Ptr(), "Missing by", "%s: one of %s, like by = \"company\".", missing, strings.Join(names, ", "))
		}
		return 0, false
	}
	s, _, st := l.stringAttr(a, l.base, scope{}, false)
	if st != ok {
		return 0, false
	}
	k, known := listfile.ParseKind(s)
	if !known {
		l.errorf(a.Expr.Range().Ptr(), "Unknown by", "by says what the column holds: one of %s; got %q.%s", strings.Join(names, ", "), s, didYouMean(s, names))
		return 0, false
	}
	return k, true
}

// excludeHash writes what the exclude blocks read into the configuration's
// hash: a changed list is a changed configuration (a saved plan made
// before is refused), and the exports are written again.
func excludeHash(c *Config) string {
	var b strings.Builder
	for _, x := range c.Excludes {
		fmt.Fprintf(&b, "exclude %q %s %q %s\n", x.Address, x.By, x.Column, x.Digest)
	}
	return b.String()
}
