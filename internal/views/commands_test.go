package views

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/golden"
)

// The views of fields, usage and export, in both forms: golden files in
// testdata/commands.

func TestFieldsViews(t *testing.T) {
	builtin := catalog.Default()
	live := &catalog.Catalog{Source: "/work/.leadsync/fields.json", FetchedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Fields: append([]api.Field{{FieldName: "Mood", SearchParameter: "moodFilter", Type: api.FieldArray, PossibleValues: []string{"Happy", "Busy & bold"}}},
			builtin.Fields[1:]...)}
	for _, c := range []struct {
		name    string
		refresh bool
		c       *catalog.Catalog
	}{{"builtin", false, builtin}, {"refreshed", true, live}} {
		for _, asJSON := range []bool{false, true} {
			var out, errOut bytes.Buffer
			v := NewFields(Streams{Out: &out, ErrOut: &errOut}, asJSON, 60)
			if c.refresh {
				v.Refreshed(builtin, c.c, len(c.c.Fields), true)
			}
			if err := v.Catalog(c.c); err != nil {
				t.Fatal(err)
			}
			if asJSON && (errOut.Len() > 0 || strings.Contains(out.String(), "null")) {
				t.Errorf("%s: stderr %q, or null in:\n%s", c.name, errOut.String(), out.String())
			}
			golden.Check(t, filepath.Join("testdata", "commands", "fields_"+c.name+ext(asJSON)), append(errOut.Bytes(), out.Bytes()...))
		}
	}
}

func TestUsageViews(t *testing.T) {
	for _, c := range []struct {
		name    string
		u       api.Usage
		sandbox bool
	}{
		{"service", api.Usage{RemainingRequests: 1234567, InvoicingStartDate: "2025-02-01"}, false},
		{"sandbox_no_date", api.Usage{RemainingRequests: 20}, true},
	} {
		for _, asJSON := range []bool{false, true} {
			var b bytes.Buffer
			if err := NewUsage(&b, asJSON).Usage(&c.u, c.sandbox); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "commands", "usage_"+c.name+ext(asJSON)), b.Bytes())
		}
	}
}

func TestExportViews(t *testing.T) {
	cfg := &config.Config{Dir: "/work", Exports: []*config.Export{{Address: "export.marketing"}, {Address: "export.crm"}}}
	written := []export.Written{
		{Path: "/work/out/leads.xlsx", Export: "export.marketing", Sheets: 2, Rows: 120, Warnings: []string{`sheet "All & more" renamed to "All more"`}},
		{Path: "/work/out/crm.csv", Export: "export.crm", Rows: 40},
		{Path: "/work/out/crm.summary.csv", Export: "export.crm", Summary: true},
	}
	for _, c := range []struct {
		name    string
		cfg     *config.Config
		written []export.Written
		err     error
	}{
		{"written", cfg, written, nil},
		{"failed", cfg, written[:1], errors.New("writing out/crm.csv: disk full")},
		{"no_exports", &config.Config{Dir: "/work"}, nil, nil},
	} {
		for _, asJSON := range []bool{false, true} {
			var out, errOut bytes.Buffer
			if err := NewExport(Streams{Out: &out, ErrOut: &errOut}, asJSON).Written(c.cfg, c.written, c.err); err != nil {
				t.Fatal(err)
			}
			if asJSON && strings.Contains(out.String(), "null") {
				t.Errorf("%s: null in:\n%s", c.name, out.String())
			}
			golden.Check(t, filepath.Join("testdata", "commands", "export_"+c.name+ext(asJSON)), append(errOut.Bytes(), out.Bytes()...))
		}
	}
}
