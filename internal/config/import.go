package config

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// Import is an import block: people adopted from a list another tool
// exported. Each row names a member (profile URL, page name or network
// ID); the other columns mapped give what the tool knew of them. A person
// imported with an e-mail counts as enriched, at no credit.
type Import struct {
	Address string // import.evaboot; module.dach.import.evaboot in a module
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr   address.Address
	Name   string
	Module string // as Search.Module
	ListFile
	// Columns map each field imported (ImportFields) to the header of its
	// column, as the file spells it.
	Columns map[string]string
	// People are the members the file names, one per person (rows naming
	// the same member merged, the later row's values winning), in the
	// order of their first row.
	People    []ImportPerson
	DeclRange hcl.Range
}

// ImportPerson is one member an import names: what the file says of them
// as an enrichment result would (identity, names, title, company, e-mail,
// its status, company domain), and when the other tool got it.
type ImportPerson struct {
	Line   int // the row (first row naming them)
	Result person.EnrichedProfile
	// EnrichedAt is the enriched_at column's date; zero when the file has
	// none (the import's own time is used).
	EnrichedAt time.Time
}

// HasEmail reports whether the person comes with an e-mail: then they
// count as enriched.
func (p *ImportPerson) HasEmail() bool { return p.Result.Email != "" }

// Import fields: the keys of an import block's columns map. One of the
// identity fields is required.
var (
	ImportIdentity = []string{"profile_url", "page_name", "network_id"}
	ImportFields   = []string{"profile_url", "page_name", "network_id", "email", "validation_status", "company_domain",
		"first_name", "last_name", "full_name", "title", "company", "location", "enriched_at"}
)

var importSchema = &hcl.BodySchema{Attributes: append([]hcl.AttributeSchema{
	{Name: "columns"}, {Name: "for_each"}, {Name: "count"},
}, listAttrs...)}

// declareImports records the import blocks for from references: each is
// one source, import.<name>.
func (l *loader) declareImports(blocks hcl.Blocks) {
	for _, b := range blocks {
		if !l.uniqueName(b) {
			if l.skip == nil {
				l.skip = map[*hcl.Block]bool{}
			}
			l.skip[b] = true
			continue
		}
		l.blocks[string(kind.Import)+"."+b.Labels[0]] = &blockInfo{kind: string(kind.Import), name: b.Labels[0], rng: b.DefRange, keys: map[string]bool{}, expanded: true}
	}
}

func (l *loader) decodeImport(b *hcl.Block) {
	if l.skip[b] {
		return
	}
	content, meant := l.content(b, importSchema, "An import block")
	l.noRepeat(content, "an import block reads one file. To import several files, write an import block for each.")
	im := &Import{Address: l.prefix + "import." + b.Labels[0], Addr: l.blockAddr(kind.Import, b.Labels[0], ""), Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange}
	at := content.Attributes
	lf, good := l.decodeListFile(b, at, meant, "An import block")
	im.ListFile = lf
	cols, ok := l.importColumns(b, at["columns"], meant)
	im.Columns, good = cols, good && ok
	if good && !l.opts.SkipListFiles {
		l.readImport(im)
	}
	l.cfg.Imports = append(l.cfg.Imports, im)
}

// importColumns reads columns = { profile_url = "LinkedIn URL", ... }:
// known fields, non-empty headers, an identity among them.
func (l *loader) importColumns(b *hcl.Block, a *hcl.Attribute, meant map[string]bool) (map[string]string, bool) {
	if a == nil {
		if !meant["columns"] {
			l.errorf(b.DefRange.Ptr(), "Missing columns", "An import block needs columns, which column of the file holds what, with an identity among them: columns = { profile_url = \"LinkedIn URL\", email = \"Email\" } (identity: %s).", strings.Join(ImportIdentity, ", "))
		}
		return nil, false
	}
	v, _, st := l.value(a, l.base, scope{})
	if st != ok {
		return nil, false
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		l.typeError(a, "a map of field names to column headers, like { profile_url = \"LinkedIn URL\" }", v)
		return nil, false
	}
	out := map[string]string{}
	good := true
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		key := k.AsString()
		if !contains(ImportFields, key) {
			l.errorf(a.Expr.Range().Ptr(), "Unknown import field", "%q is not a field an import reads; the fields are %s.%s", key, strings.Join(ImportFields, ", "), didYouMean(key, ImportFields))
			good = false
			continue
		}
		if val.IsNull() || val.Type() != cty.String || strings.TrimSpace(val.AsString()) == "" {
			l.errorf(a.Expr.Range().Ptr(), "Invalid column header", "columns.%s must be the header of a column of the file, a non-empty string.", key)
			good = false
			continue
		}
		out[key] = val.AsString()
	}
	if !good {
		return nil, false
	}
	hasID := false
	for _, f := range ImportIdentity {
		if out[f] != "" {
			hasID = true
		}
	}
	if !hasID {
		l.errorf(a.Expr.Range().Ptr(), "No identity column", "An import needs a column that names each member: map one of %s (columns = { profile_url = \"LinkedIn URL\", ... }). Without one, nobody could be matched to the network.", strings.Join(ImportIdentity, ", "))
		return nil, false
	}
	return out, true
}

// readImport reads an import's file: every row must name a member and
// have readable values; otherwise every such row is listed and nothing is
// imported.
func (l *loader) readImport(im *Import) {
	fields := make([]string, 0, len(im.Columns))
	for f := range im.Columns {
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool { return fieldOrder(fields[i]) < fieldOrder(fields[j]) })
	headers := make([]string, len(fields))
	for i, f := range fields {
		headers[i] = im.Columns[f]
	}
	t, ok := l.readList(&im.ListFile, headers)
	if !ok {
		return
	}
	for i, f := range fields {
		im.Columns[f] = t.Columns[i]
	}
	var probs listfile.Errors
	im.People = make([]ImportPerson, 0, len(t.Rows))
	byKey := make(map[string]int, len(t.Rows)) // identity key -> index in People
	for _, r := range t.Rows {
		p, err := importRow(t, r, fields)
		if err != nil {
			probs.Add(err)
			continue
		}
		keys := identityKeys(&p.Result)
		at, merged := -1, false
		for _, k := range keys {
			if k == "" {
				continue
			}
			if i, dup := byKey[k]; dup {
				at, merged = i, true
				break
			}
		}
		if merged {
			mergeImported(&im.People[at], &p)
		} else {
			at = len(im.People)
			im.People = append(im.People, p)
		}
		for _, k := range keys {
			if k != "" {
				byKey[k] = at
			}
		}
	}
	if err := probs.Err(); err != nil {
		l.listError(im.FileRange.Ptr(), err)
		im.People = nil
	}
}

// fieldOrder orders the fields as ImportFields lists them.
func fieldOrder(f string) int {
	for i, x := range ImportFields {
		if x == f {
			return i
		}
	}
	return len(ImportFields)
}

// importRow reads one row: its identity (a network ID, or a page name
// from page_name or profile_url), and the other fields.
func importRow(t *listfile.Table, r listfile.Row, fields []string) (ImportPerson, *listfile.Error) {
	p := ImportPerson{Line: r.Line}
	for i, f := range fields {
		v := strings.TrimSpace(r.Cells[i])
		if v == "" {
			continue
		}
		if msg := p.set(t, f, v); msg != "" {
			return p, &listfile.Error{File: t.File, Sheet: r.Sheet, Row: r.Line, Column: t.Columns[i], Msg: msg}
		}
	}
	res := &p.Result
	if res.PageName == "" && res.NetworkID == "" {
		var cols []string
		for i, f := range fields {
			if contains(ImportIdentity, f) {
				cols = append(cols, fmt.Sprintf("%q", t.Columns[i]))
			}
		}
		verb := map[int]string{1: "is empty", 2: "are both empty"}[len(cols)]
		if verb == "" {
			verb = "are all empty"
		}
		return p, &listfile.Error{File: t.File, Sheet: r.Sheet, Row: r.Line, Msg: fmt.Sprintf("names no member: %s %s; every row needs one (remove the row, or fill it in)",
			strings.Join(cols, " and "), verb)}
	}
	if res.FullName == "" && (res.FirstName != "" || res.LastName != "") {
		res.FullName = strings.TrimSpace(res.FirstName + " " + res.LastName)
	}
	return p, nil
}

// set sets the import field f of p to the cell's value v (not empty), and
// returns what is wrong with v, or "".
func (p *ImportPerson) set(t *listfile.Table, f, v string) string {
	res := &p.Result
	switch f {
	case "profile_url":
		page, ok := listfile.PageFromURL(v)
		if !ok {
			return fmt.Sprintf("expected a profile URL such as https://network.example/profile/Max_Mustermann, got %q", v)
		}
		if res.PageName == "" {
			res.PageName = page
		}
	case "page_name":
		if _, err := listfile.PageKey(v); err != nil {
			return err.Error()
		}
		if page, ok := listfile.PageFromURL(v); ok {
			v = page
		}
		res.PageName = v
	case "network_id":
		k, err := listfile.NetworkIDKey(v)
		if err != nil {
			return err.Error()
		}
		res.NetworkID = k
	case "email":
		if _, err := listfile.EmailKey(v); err != nil {
			return err.Error() + "; clear the cell of a person without one"
		}
		res.Email = v
	case "validation_status":
		st, ok := validationStatus(v)
		if !ok {
			return fmt.Sprintf("expected a validation status, %s (or a synonym: %s), got %q; an e-mail another tool found invalid is none to send to: clear the row's e-mail and status", statusWords(), statusSynonyms(), v)
		}
		res.ValidationStatus = st
	case "company_domain":
		res.CompanyDomain = v
	case "first_name":
		res.FirstName = v
	case "last_name":
		res.LastName = v
	case "full_name":
		res.FullName = v
	case "title":
		res.Title = v
	case "company":
		res.Company = v
	case "location":
		res.Location = v
	case "enriched_at":
		d, err := t.ParseDate(v)
		if err != nil {
			return err.Error()
		}
		p.EnrichedAt = d
	}
	return ""
}

// validationStatus writes a validation status in the service's words
// (valid, catch all, empty) when it is one of them or a synonym another
// tool exports (ValidationStatuses), in any case and with hyphens,
// underscores or spaces ("Catch-All", "not_found"); ok is false for any
// other status, which the import refuses at its row: a status leadsync
// cannot read would show as something it is not.
func validationStatus(v string) (string, bool) {
	w := strings.Join(strings.Fields(statusSpelling.Replace(strings.ToLower(v))), " ")
	for _, s := range ValidationStatuses {
		for _, syn := range s.Synonyms {
			if w == syn {
				return s.Status, true
			}
		}
	}
	return "", false
}

// ValidationStatus is one of the service's validation statuses with the
// spellings of it an import accepts (after lower case, and "-" and "_"
// read as spaces). The documentation lists them (docs/configuration.md,
// "import"; a test keeps the two equal).
type ValidationStatus struct {
	Status   string
	Synonyms []string
}

// ValidationStatuses are the statuses an import reads. Statuses that say
// an e-mail is wrong ("invalid", "undeliverable", "risky") are none of
// the service's: such a row's e-mail is no e-mail to send to.
var ValidationStatuses = []ValidationStatus{
	{person.StatusValid, []string{"valid", "verified", "deliverable", "ok"}},
	{person.StatusCatchAll, []string{"catch all", "catchall", "accept all", "acceptall"}},
	{person.StatusEmpty, []string{"empty", "not found", "none", "no email"}},
}

var statusSpelling = strings.NewReplacer("-", " ", "_", " ")

// statusWords lists the service's statuses: "valid, catch all or empty".
func statusWords() string {
	parts := make([]string, len(ValidationStatuses))
	for i, s := range ValidationStatuses {
		parts[i] = s.Status
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// statusSynonyms lists the other spellings an import reads, for a message.
func statusSynonyms() string {
	var out []string
	for _, s := range ValidationStatuses {
		out = append(out, s.Synonyms[1:]...)
	}
	return strings.Join(out, ", ")
}

// identityKeys are the keys a person is matched by across rows: their
// network ID and their page name (lower case).
// An empty key is none.
func identityKeys(r *person.EnrichedProfile) (out [2]string) {
	if r.NetworkID != "" {
		out[0] = "n:" + r.NetworkID
	}
	if r.PageName != "" {
		out[1] = "p:" + strings.ToLower(r.PageName)
	}
	return out
}

// mergeImported folds a later row naming the same member into dst: its
// non-empty values win, but for the identity, which only fills what dst
// lacks.
func mergeImported(dst, src *ImportPerson) {
	d, s := &dst.Result, &src.Result
	// The identity as first written; a later row only adds what is missing.
	if d.PageName == "" {
		d.PageName = s.PageName
	}
	if d.NetworkID == "" {
		d.NetworkID = s.NetworkID
	}
	for _, f := range []struct{ d, s *string }{
		{&d.Email, &s.Email},
		{&d.ValidationStatus, &s.ValidationStatus}, {&d.CompanyDomain, &s.CompanyDomain},
		{&d.FirstName, &s.FirstName}, {&d.LastName, &s.LastName}, {&d.FullName, &s.FullName},
		{&d.Title, &s.Title}, {&d.Company, &s.Company}, {&d.Location, &s.Location},
	} {
		if *f.s != "" {
			*f.d = *f.s
		}
	}
	if !src.EnrichedAt.IsZero() {
		dst.EnrichedAt = src.EnrichedAt
	}
}

// importHash writes what the import blocks read into the configuration's
// hash: a changed or re-exported file is a changed configuration.
func importHash(c *Config) string {
	var b strings.Builder
	for _, im := range c.Imports {
		fields := make([]string, 0, len(im.Columns))
		for f := range im.Columns {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		fmt.Fprintf(&b, "import %q %s", im.Address, im.Digest)
		for _, f := range fields {
			fmt.Fprintf(&b, " %s=%q", f, im.Columns[f])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Event is the state event that adopts the file's people as read.
func (im *Import) Event() *state.ImportEvent {
	ev := &state.ImportEvent{File: im.File, Digest: im.Digest, Rows: im.Rows, Columns: im.Columns,
		People: make([]state.ImportedPerson, len(im.People))}
	for i, p := range im.People {
		ev.People[i].Result = p.Result
		if !p.EnrichedAt.IsZero() {
			at := p.EnrichedAt
			ev.People[i].EnrichedAt = &at
		}
	}
	return ev
}
