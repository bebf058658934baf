package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
)

func readPlanJSON(t *testing.T, name string) *plan.Plan {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "plan", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var p plan.Plan
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// nastyPlan has values that would break a table or inject markup if
// written as they are: pipes, backticks, HTML, Markdown emphasis, newlines.
func nastyPlan() *plan.Plan {
	return &plan.Plan{
		Changes: []*plan.Change{
			{Address: `search.cto["a|b"]`, Kind: kind.Search, Action: plan.Run, Calls: 1, CallsMax: 1, Reason: plan.ReasonNew,
				Detail: "keywords=\"<script>alert(1)</script>\" city=\"*Köln* | `x`\"\nsecond line"},
			{Address: "search.`tick`", Kind: kind.Search, Action: plan.Rerun, Calls: 1, CallsMax: 1, Reason: plan.ReasonRequestChanged, Detail: "[link](https://evil.example) _em_ # h"},
			{Address: "enrich.e", Kind: kind.Enrich, Action: plan.Enrich, Calls: 2, CallsMax: 10, Credits: 2, CreditsMax: 10, Reason: plan.ReasonPeople, Detail: "2 known + up to 8 from searches that will run"},
		},
		Totals:      plan.Totals{Calls: 4, CallsMax: 12, Credits: 2, CreditsMax: 10, Searches: 2, Enrichments: 2, EnrichmentsMax: 10, RateLimit: 1, DurationSecondsMax: 42},
		Quota:       plan.Quota{Note: "not checked (--offline)", MaxCredits: 500},
		Diagnostics: []plan.Diagnostic{{Severity: "warning", Summary: "Rate limit <above> the service's", Detail: strings.Repeat("long detail | with a pipe ", 12)}},
	}
}

// manyPlan has more changes than the comment shows open.
func manyPlan() *plan.Plan {
	p := &plan.Plan{Totals: plan.Totals{RateLimit: 1}, Quota: plan.Quota{MaxCredits: 500}}
	for i := 0; i < mdOpenLimit+5; i++ {
		p.Changes = append(p.Changes, &plan.Change{Address: fmt.Sprintf("search.city[%d]", i), Kind: kind.Search, Action: plan.Run, Calls: 1, CallsMax: 1, Reason: plan.ReasonNew})
		p.Totals.Calls++
		p.Totals.CallsMax++
		p.Totals.Searches++
	}
	p.Totals.DurationSecondsMax = 60
	return p
}

// TestPlanMarkdownGolden draws pull-request comments: internal/plan's
// golden plans, one compared with another as its base, a plan with values
// that must not break the Markdown, and a long one.
func TestPlanMarkdownGolden(t *testing.T) {
	cases := []struct {
		name string
		p    func() *plan.Plan
		base func() *plan.Plan
	}{
		{"fresh", func() *plan.Plan { return readPlanJSON(t, "fresh") }, nil},
		{"all_run", func() *plan.Plan { return readPlanJSON(t, "all_run") }, nil},
		{"over_budget", func() *plan.Plan { return readPlanJSON(t, "over_budget") }, nil},
		{"tracked", func() *plan.Plan { return readPlanJSON(t, "tracked") }, nil},
		{"removed", func() *plan.Plan { return readPlanJSON(t, "removed") }, nil},
		{"credits_short", func() *plan.Plan { return readPlanJSON(t, "credits_short") }, nil},
		{"excluded", func() *plan.Plan { return readPlanJSON(t, "excluded") }, nil},
		{"targets_replace", func() *plan.Plan { return readPlanJSON(t, "targets_replace") }, nil},
		{"moved", func() *plan.Plan { return readPlanJSON(t, "moved") }, nil},
		{"partly_run_vs_fresh", func() *plan.Plan { return readPlanJSON(t, "partly_run") }, func() *plan.Plan { return readPlanJSON(t, "fresh") }},
		{"changed_filters_vs_all_run", func() *plan.Plan { return readPlanJSON(t, "changed_filters") }, func() *plan.Plan { return readPlanJSON(t, "all_run") }},
		{"fresh_vs_fresh", func() *plan.Plan { return readPlanJSON(t, "fresh") }, func() *plan.Plan { return readPlanJSON(t, "fresh") }},
		{"nasty", nastyPlan, nil},
		{"many", manyPlan, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var base *plan.Plan
			if tc.base != nil {
				base = tc.base()
			}
			p := tc.p()
			var b bytes.Buffer
			if err := PlanMarkdown(&b, p, base); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "markdown_"+tc.name+".md"), b.Bytes())
			checkMarkdown(t, b.Bytes(), p, base != nil)
		})
	}
}

// checkMarkdown parses a comment with goldmark and GitHub's table
// extension, as GitHub renders it: the changes are one table with a row per
// change and the planned columns, the up-to-date addresses another; no
// HTML but the <details> blocks.
func checkMarkdown(t *testing.T, src []byte, p *plan.Plan, compared bool) {
	t.Helper()
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src))
	var tables []*east.Table
	var htmlBlocks []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *east.Table:
			tables = append(tables, x)
		case *ast.HTMLBlock:
			var s strings.Builder
			for i := 0; i < x.Lines().Len(); i++ {
				seg := x.Lines().At(i)
				s.Write(seg.Value(src))
			}
			htmlBlocks = append(htmlBlocks, strings.TrimSpace(s.String()))
		case *ast.RawHTML:
			var s strings.Builder
			for i := 0; i < x.Segments.Len(); i++ {
				seg := x.Segments.At(i)
				s.Write(seg.Value(src))
			}
			htmlBlocks = append(htmlBlocks, s.String())
		}
		return ast.WalkContinue, nil
	})
	for _, h := range htmlBlocks {
		if !strings.HasPrefix(h, "<details>") && h != "</details>" && !strings.HasPrefix(h, "</summary>") && !strings.HasPrefix(h, "<summary>") {
			t.Errorf("HTML other than <details> in the comment: %q", h)
		}
	}
	var changes, same int
	for _, c := range p.Changes {
		if c.Action == plan.None {
			same++
		} else {
			changes++
		}
	}
	want := 0
	if changes > 0 {
		want++
	}
	if same > 0 {
		want++
	}
	if len(tables) != want {
		t.Fatalf("%d tables, want %d (changes %d, up to date %d):\n%s", len(tables), want, changes, same, src)
	}
	if changes == 0 {
		return
	}
	tbl := tables[0]
	header := cellTexts(tbl.FirstChild(), src)
	wantHeader := []string{"", "Address", "Action", "Calls", "Credits", "Reason"}
	if compared {
		wantHeader = append(wantHeader, "Compared with the base")
	}
	if strings.Join(header, "|") != strings.Join(wantHeader, "|") {
		t.Errorf("header %q, want %q", header, wantHeader)
	}
	rows := 0
	i := 0
	for r := tbl.FirstChild().NextSibling(); r != nil; r = r.NextSibling() {
		cells := cellTexts(r, src)
		if len(cells) != len(wantHeader) {
			t.Errorf("row %d has %d cells, want %d: %q", rows+1, len(cells), len(wantHeader), cells)
		}
		for i < len(p.Changes) && p.Changes[i].Action == plan.None {
			i++
		}
		if i < len(p.Changes) && len(cells) > 2 {
			c := p.Changes[i]
			if cells[1] != c.Address || cells[2] != string(c.Action) {
				t.Errorf("row %d = %q, want address %q and action %q", rows+1, cells, c.Address, c.Action)
			}
		}
		i++
		rows++
	}
	if rows != changes {
		t.Errorf("%d rows in the changes table, want %d", rows, changes)
	}
}

// cellTexts returns the text of each cell of a table row (or header), as
// a reader sees it: code spans and escapes resolved.
func cellTexts(row ast.Node, src []byte) []string {
	var out []string
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		var s strings.Builder
		ast.Walk(c, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if entering {
				if t, ok := n.(*ast.Text); ok {
					s.Write(t.Segment.Value(src))
				}
				if t, ok := n.(*ast.String); ok {
					s.Write(t.Value)
				}
			}
			return ast.WalkContinue, nil
		})
		out = append(out, strings.TrimSpace(s.String()))
	}
	return out
}

func TestPlanMarkdownRendersHTMLSafely(t *testing.T) {
	var src, html bytes.Buffer
	if err := PlanMarkdown(&src, nastyPlan(), nil); err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	if err := md.Convert(src.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	for _, bad := range []string{"<script>", "<a href", "<em>", "<h1>"} {
		if strings.Contains(out, bad) {
			t.Errorf("the comment renders %s from a value:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Errorf("the value's HTML is not shown as text:\n%s", out)
	}
}

func TestMdDelta(t *testing.T) {
	for _, tc := range []struct {
		d    mdDelta
		want string
	}{
		{mdDelta{calls: 12, credits: 25}, "**+12 calls, +25 credits** compared with the base."},
		{mdDelta{calls: -1, credits: 0}, "**-1 call, ±0 credits** compared with the base."},
		{mdDelta{}, "No difference in calls or credits compared with the base."},
	} {
		if got := tc.d.sentence(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}
