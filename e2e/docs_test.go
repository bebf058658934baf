package e2e

// The docs: every link and anchor leads somewhere, the README's commands
// and configuration work as written, and no page speaks of what a reader
// does not have.

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/leadsync/leadsync/internal/config"
)

// setupCommands are the two commands README.md promises a new reader;
// .ci/run and the end-to-end tests rely on them working as written.
var setupCommands = []string{
	"go run . apply --chdir examples/quickstart --auto-approve",
	"go test ./...",
}

// mdDoc is one parsed markdown file: its heading anchors and its links.
type mdDoc struct {
	anchors map[string]bool
	links   []mdLink
}

type mdLink struct {
	dest string
	line int
}

// docFiles lists README.md, CONTRIBUTING.md and every docs/*.md, by their
// paths in the repository.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages := docsPages(t)
	if len(pages) == 0 {
		t.Fatal("no docs/*.md pages")
	}
	return append([]string{"README.md", "CONTRIBUTING.md"}, pages...)
}

// docsPages lists docs/*.md by their paths in the repository, sorted.
func docsPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(repoFile("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if pages[i], err = filepath.Rel(repoFile(), p); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(pages)
	return pages
}

// parseDoc parses a markdown file (its path in the repository) with
// GitHub's extensions (tables, so that links in table cells are found) and
// collects anchors and links.
func parseDoc(t *testing.T, path string) mdDoc {
	t.Helper()
	src, err := os.ReadFile(repoFile(path))
	if err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	root := md.Parser().Parse(text.NewReader(src))
	doc := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	err = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			slug := githubSlug(inlineText(n, src))
			if k := seen[slug]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
		case *ast.Link:
			doc.links = append(doc.links, mdLink{dest: string(n.Destination), line: lineOf(n, src)})
		case *ast.Image:
			doc.links = append(doc.links, mdLink{dest: string(n.Destination), line: lineOf(n, src)})
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// inlineText is the plain text of a heading, code spans included, as GitHub
// uses it for the anchor.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// githubSlug turns heading text into the anchor GitHub gives it: lower case,
// letters, digits, '-' and '_' kept, spaces become '-', the rest dropped.
func githubSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// lineOf finds the source line of an inline node through its first text
// segment, or of its block parent; 0 when unknown.
func lineOf(n ast.Node, src []byte) int {
	for p := n; p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return 1 + strings.Count(string(src[:p.Lines().At(0).Start]), "\n")
		}
		if t, ok := p.FirstChild().(*ast.Text); ok && p.Type() == ast.TypeInline {
			return 1 + strings.Count(string(src[:t.Segment.Start]), "\n")
		}
	}
	return 0
}

// TestDocsLinks checks that every relative link and #anchor in README.md,
// CONTRIBUTING.md and docs/*.md leads to an existing file and heading.
func TestDocsLinks(t *testing.T) {
	files := docFiles(t)
	docs := map[string]mdDoc{}
	for _, f := range files {
		docs[filepath.Clean(f)] = parseDoc(t, f)
	}
	for _, f := range files {
		for _, l := range docs[filepath.Clean(f)].links {
			u, err := url.Parse(l.dest)
			if err != nil {
				t.Errorf("%s:%d: link %q does not parse: %v", f, l.line, l.dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue // external: not checked offline
			}
			target := filepath.Clean(f)
			if u.Path != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(f), u.Path))
				if _, err := os.Stat(repoFile(target)); err != nil {
					t.Errorf("%s:%d: link %q: no file %s", f, l.line, l.dest, target)
					continue
				}
			}
			if u.Fragment == "" {
				continue
			}
			doc, ok := docs[target]
			if !ok {
				if !strings.HasSuffix(target, ".md") {
					t.Errorf("%s:%d: link %q: an anchor into %s, which is not markdown", f, l.line, l.dest, target)
					continue
				}
				doc = parseDoc(t, target)
				docs[target] = doc
			}
			if !doc.anchors[u.Fragment] {
				t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", f, l.line, l.dest, target, u.Fragment)
			}
		}
	}
}

// TestDocsReadme checks the front page: the two set-up commands as written,
// and a link to every docs page.
func TestDocsReadme(t *testing.T) {
	readme, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range setupCommands {
		if !strings.Contains(string(readme), c) {
			t.Errorf("README.md does not name the set-up command %q", c)
		}
	}
	linked := map[string]bool{}
	for _, l := range parseDoc(t, "README.md").links {
		if u, err := url.Parse(l.dest); err == nil && u.Scheme == "" {
			linked[filepath.Clean(u.Path)] = true
		}
	}
	for _, p := range append(docsPages(t), "CONTRIBUTING.md") {
		if !linked[filepath.Clean(p)] {
			t.Errorf("README.md does not link to %s", p)
		}
	}
}

// TestDocsSpeakToTheReader checks that no page refers to the project's
// issue tracker or to a design document the reader does not have. Link
// targets are not read: a link to another project's bug tracker is fine.
func TestDocsSpeakToTheReader(t *testing.T) {
	bad := regexp.MustCompile(`(?i)\bissues?\b|design\.md|\bthe design\b`)
	target := regexp.MustCompile(`\]\([^)]*\)`)
	for _, f := range docFiles(t) {
		src, err := os.ReadFile(repoFile(f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := bad.FindString(target.ReplaceAllString(line, "]")); m != "" {
				t.Errorf("%s:%d: speaks of %q: %s", f, i+1, m, line)
			}
		}
	}
}

// TestDocsReadmeConfigurationIsValid loads the README's configuration at a
// glance as leadsync would, so that it cannot drift from the language.
func TestDocsReadmeConfigurationIsValid(t *testing.T) {
	src, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	n := 0
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		fb, ok := c.(*ast.FencedCodeBlock)
		if !ok || string(fb.Language(src)) != "hcl" {
			continue
		}
		n++
		var b strings.Builder
		for i := 0; i < fb.Lines().Len(); i++ {
			seg := fb.Lines().At(i)
			b.Write(seg.Value(src))
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, diags := config.Load(config.LoadOptions{Dir: dir}); diags.HasErrors() {
			t.Errorf("README.md's hcl block %d does not load: %s", n, diags.Error())
		}
	}
	if n == 0 {
		t.Error("README.md shows no hcl configuration")
	}
}
