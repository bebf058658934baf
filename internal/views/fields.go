package views

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Fields is the view of `leadsync fields`: the searchable-field catalog.
type Fields interface {
	// Refreshed says what fields --refresh fetched (fetched fields, from
	// the sandbox or not) and how fresh differs from old; the human form
	// says it on ErrOut, before the catalog, and the JSON form not at all.
	Refreshed(old, fresh *catalog.Catalog, fetched int, sandbox bool)
	// Catalog shows the catalog.
	Catalog(c *catalog.Catalog) error
	// RefreshingDespiteErrors says on ErrOut, in both forms, that the
	// configuration has errors (shown above) but its api block is usable,
	// so the catalog is refreshed anyway.
	RefreshingDespiteErrors()
}

// NewFields returns the JSON or the human view of fields; the human form
// wraps the accepted values in lines of at most width columns.
func NewFields(s Streams, asJSON bool, width int) Fields {
	if asJSON {
		return fieldsJSON{s.Out, s.ErrOut}
	}
	return fieldsHuman{s, width}
}

var (
	_ Fields = fieldsHuman{}
	_ Fields = fieldsJSON{}
)

type fieldsHuman struct {
	s     Streams
	width int
}

func (v fieldsHuman) Refreshed(old, fresh *catalog.Catalog, fetched int, sandbox bool) {
	w := v.s.ErrOut
	from := ""
	if sandbox {
		from = " (the built-in sandbox)"
	}
	fmt.Fprintf(w, "Fetched %s from the service%s and cached them in %s; validate and plan now check filters against them.\n",
		textfmt.Plural(fetched, "field"), from, catalog.CachePath)
	if changes := CatalogChanges(old, fresh); len(changes) > 0 {
		fmt.Fprintf(w, "Changes from %s:\n", old.Describe())
		for _, c := range changes {
			fmt.Fprintf(w, "  %s\n", c)
		}
	} else {
		fmt.Fprintf(w, "No changes from %s.\n", old.Describe())
	}
	fmt.Fprintln(w)
}

// Catalog writes the catalog as a table, then the values each array
// filter accepts.
func (v fieldsHuman) Catalog(c *catalog.Catalog) error {
	w := v.s.Out
	src := "the built-in list of the specification; `leadsync fields --refresh` fetches the live one"
	if c.Source != catalog.SourceBuiltin && c.Source != "" {
		src = catalog.CachePath
		if !c.FetchedAt.IsZero() {
			src += ", fetched " + c.FetchedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	fmt.Fprintf(w, "%s (%s):\n\n", textfmt.Plural(len(c.Fields), "searchable field"), src)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ATTRIBUTE\tPARAMETER\tTYPE\tLABEL")
	for _, fd := range c.Fields {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", catalog.AttributeName(fd.SearchParameter), fd.SearchParameter, fd.Type, fd.FieldName)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, fd := range c.Fields {
		if fd.Type != api.FieldArray {
			continue
		}
		fmt.Fprintf(w, "\n%s accepts:\n", catalog.AttributeName(fd.SearchParameter))
		for _, line := range wrapValues(fd.PossibleValues, v.width) {
			if _, err := fmt.Fprintf(w, "  %s\n", line); err != nil {
				return err
			}
		}
	}
	return nil
}

// FieldsJSON is the --json form of the catalog.
type FieldsJSON struct {
	FormatVersion string      `json:"format_version"`
	Source        string      `json:"source"`               // "built-in" or the cache path
	FetchedAt     *time.Time  `json:"fetched_at,omitempty"` // absent for the built-in list
	Fields        []FieldJSON `json:"fields"`
}

// FieldJSON is one field of FieldsJSON.
type FieldJSON struct {
	Attribute       string   `json:"attribute"`
	SearchParameter string   `json:"search_parameter"`
	FieldName       string   `json:"field_name"`
	Type            string   `json:"type"`
	PossibleValues  []string `json:"possible_values"`
}

type fieldsJSON struct{ w, errOut io.Writer }

func (v fieldsHuman) RefreshingDespiteErrors() { refreshingDespiteErrors(v.s.ErrOut) }

func (v fieldsJSON) RefreshingDespiteErrors() { refreshingDespiteErrors(v.errOut) }

func refreshingDespiteErrors(w io.Writer) {
	fmt.Fprintln(w, "The configuration has errors (above); the api block is usable, so the catalog is refreshed anyway.")
}

func (fieldsJSON) Refreshed(_, _ *catalog.Catalog, _ int, _ bool) {}

func (v fieldsJSON) Catalog(c *catalog.Catalog) error {
	out := FieldsJSON{FormatVersion: "1", Source: catalog.SourceBuiltin}
	if c.Source != catalog.SourceBuiltin && c.Source != "" {
		out.Source = catalog.CachePath
	}
	if !c.FetchedAt.IsZero() {
		t := c.FetchedAt.UTC()
		out.FetchedAt = &t
	}
	for _, fd := range c.Fields {
		out.Fields = append(out.Fields, FieldJSON{
			Attribute: catalog.AttributeName(fd.SearchParameter), SearchParameter: fd.SearchParameter,
			FieldName: fd.FieldName, Type: fd.Type, PossibleValues: fd.PossibleValues,
		})
	}
	return writeJSONDoc(v.w, out)
}

// wrapValues lists quoted values separated by commas, in lines of at most
// width columns (a single long value gets a line of its own).
func wrapValues(vals []string, width int) []string {
	var lines []string
	var cur strings.Builder
	curWidth := 0
	for i, v := range vals {
		item := fmt.Sprintf("%q", v)
		if i < len(vals)-1 {
			item += ","
		}
		w := textfmt.Width(item)
		if cur.Len() > 0 && curWidth+1+w > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curWidth = 0
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
			curWidth++
		}
		cur.WriteString(item)
		curWidth += w
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// CatalogChanges lists what differs between two catalogs: fields added or
// removed, types changed, array values added or removed.
func CatalogChanges(old, fresh *catalog.Catalog) []string {
	byParam := func(c *catalog.Catalog) map[string]api.Field {
		m := map[string]api.Field{}
		for _, fd := range c.Fields {
			m[fd.SearchParameter] = fd
		}
		return m
	}
	o, n := byParam(old), byParam(fresh)
	var out []string
	for _, fd := range fresh.Fields {
		of, ok := o[fd.SearchParameter]
		attr := catalog.AttributeName(fd.SearchParameter)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("+ %s (%s, %s)", attr, fd.SearchParameter, fd.Type))
			continue
		case of.Type != fd.Type:
			out = append(out, fmt.Sprintf("~ %s: type %s -> %s", attr, of.Type, fd.Type))
		}
		for _, v := range fd.PossibleValues {
			if !slices.Contains(of.PossibleValues, v) {
				out = append(out, fmt.Sprintf("+ %s value %q", attr, v))
			}
		}
		for _, v := range of.PossibleValues {
			if !slices.Contains(fd.PossibleValues, v) {
				out = append(out, fmt.Sprintf("- %s value %q", attr, v))
			}
		}
	}
	for _, fd := range old.Fields {
		if _, ok := n[fd.SearchParameter]; !ok {
			out = append(out, fmt.Sprintf("- %s (%s)", catalog.AttributeName(fd.SearchParameter), fd.SearchParameter))
		}
	}
	return out
}
