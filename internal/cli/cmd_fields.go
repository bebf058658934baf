package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/textfmt"
)

func newFieldsCmd(f *Factory) *cobra.Command {
	var fl arguments.FieldsFlags
	cmd := &cobra.Command{
		Use:   "fields",
		Short: "Print the searchable-field catalog; --refresh fetches it live",
		Long: `Fields prints the catalog search filters are checked against: each
attribute of a search block, the service's parameter name, its type and, for
array filters, the only values accepted.

Without --refresh it makes no call and prints the cached live list
(.leadsync/fields.json) when there is one, else the built-in list of the
specification. --refresh reads the list from the service (one call, which
counts against the rate limit and the monthly quota) and caches it;
validate and plan then check against it and say so.`,
		Example: `  leadsync fields
  leadsync fields --refresh
  leadsync fields --json | jq '.fields[] | select(.type == "array") | .attribute'`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseFields, func(cmd *cobra.Command, a *arguments.Fields) error {
		return runFields(cmd.Context(), f, a)
	})
	return cmd
}

func runFields(ctx context.Context, f *Factory, a *arguments.Fields) error {
	asJSON := a.View == arguments.ViewJSON
	cachePath := filepath.Join(f.Dir, catalog.CachePath)
	old, err := catalog.LoadCache(cachePath)
	if err != nil && !a.Refresh {
		return err
	}
	if old == nil {
		old = catalog.Default()
	}
	if !a.Refresh {
		return printCatalog(f.IO.Out, old, asJSON, f.IO.TextWidth(76))
	}

	cfg, diags := loadConfig(f, a.Vars)
	if diags.HasErrors() {
		writeDiagnostics(f, cfg, diags)
		// A stale catalog can itself be why the configuration is invalid
		// (a value the service added): refresh anyway when the api block
		// is usable, so that the user can get out of that.
		if !cfg.API.Sandbox && cfg.API.BaseURL == "" {
			return silentExit(ExitError)
		}
		fmt.Fprintln(f.IO.ErrOut, "The configuration has errors (above); the api block is usable, so the catalog is refreshed anyway.")
	}
	client, err := newServiceClient(f, cfg)
	if err != nil {
		return err
	}
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	fresh, fetched, err := run.RefreshFields(ctx, client, cachePath, now)
	if fe := (*run.FieldsError)(nil); errors.As(err, &fe) {
		return reportAPIError(f, "reading the field list", fe.Err)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printCatalog(f.IO.Out, fresh, true, 0)
	}
	rel := catalog.CachePath
	fmt.Fprintf(f.IO.ErrOut, "Fetched %s from the service%s and cached them in %s; validate and plan now check filters against them.\n",
		textfmt.Plural(fetched, "field"), sandboxNote(cfg.API.Sandbox), rel)
	if changes := catalogChanges(old, fresh); len(changes) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "Changes from %s:\n", old.Describe())
		for _, c := range changes {
			fmt.Fprintf(f.IO.ErrOut, "  %s\n", c)
		}
	} else {
		fmt.Fprintf(f.IO.ErrOut, "No changes from %s.\n", old.Describe())
	}
	fmt.Fprintln(f.IO.ErrOut)
	return printCatalog(f.IO.Out, fresh, false, f.IO.TextWidth(76))
}

func sandboxNote(sandbox bool) string {
	if sandbox {
		return " (the built-in sandbox)"
	}
	return ""
}

// fieldsJSON is the --json form of the catalog.
type fieldsJSON struct {
	FormatVersion string          `json:"format_version"`
	Source        string          `json:"source"`               // "built-in" or the cache path
	FetchedAt     *time.Time      `json:"fetched_at,omitempty"` // absent for the built-in list
	Fields        []fieldJSONItem `json:"fields"`
}

type fieldJSONItem struct {
	Attribute       string   `json:"attribute"`
	SearchParameter string   `json:"search_parameter"`
	FieldName       string   `json:"field_name"`
	Type            string   `json:"type"`
	PossibleValues  []string `json:"possible_values"`
}

// printCatalog writes the catalog as a table (array values listed under
// their field, in lines of at most width columns) or as JSON.
func printCatalog(w io.Writer, c *catalog.Catalog, asJSON bool, width int) error {
	if asJSON {
		out := fieldsJSON{FormatVersion: "1", Source: catalog.SourceBuiltin, Fields: []fieldJSONItem{}}
		if c.Source != catalog.SourceBuiltin && c.Source != "" {
			out.Source = catalog.CachePath
		}
		if !c.FetchedAt.IsZero() {
			t := c.FetchedAt.UTC()
			out.FetchedAt = &t
		}
		for _, fd := range c.Fields {
			vals := fd.PossibleValues
			if vals == nil {
				vals = []string{}
			}
			out.Fields = append(out.Fields, fieldJSONItem{
				Attribute: catalog.AttributeName(fd.SearchParameter), SearchParameter: fd.SearchParameter,
				FieldName: fd.FieldName, Type: fd.Type, PossibleValues: vals,
			})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
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
		for _, line := range wrapValues(fd.PossibleValues, width) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
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

// catalogChanges lists what differs between two catalogs: fields added or
// removed, types changed, array values added or removed.
func catalogChanges(old, fresh *catalog.Catalog) []string {
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
