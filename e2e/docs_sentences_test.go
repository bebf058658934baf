package e2e

import (
	"os"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// maxSentenceWords is the most words a sentence of the docs' prose may
// have: a newcomer reads one idea at a time. Code blocks and tables are
// not prose; a code span counts as one word. A sentence whose words are
// mostly (three quarters) code spans is a list of names to look up (the
// legal forms a company name drops), not prose, and is not held to it.
const maxSentenceWords = 40

// TestDocsSentencesShort: no sentence of README.md, CONTRIBUTING.md or
// docs/*.md (outside code blocks and tables) is longer than
// maxSentenceWords words. Each offender is reported at its file and line,
// with its length and its first words.
func TestDocsSentencesShort(t *testing.T) {
	for _, f := range docFiles(t) {
		for _, s := range docSentences(t, f) {
			if len(s.words) <= maxSentenceWords || s.nameList() {
				continue
			}
			t.Errorf("%s:%d: a sentence of %d words (at most %d): %s ...", f, s.line, len(s.words), maxSentenceWords, strings.Join(s.words[:12], " "))
		}
	}
}

// TestDocsNoConflictMarkers: no page holds the markers of a merge
// conflict left unresolved (docs/reliability.md once did, its guarantees
// 5b and 5c twice).
func TestDocsNoConflictMarkers(t *testing.T) {
	for _, f := range docFiles(t) {
		src, err := os.ReadFile(repoFile(f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") {
				t.Errorf("%s:%d: a merge conflict's marker: %s", f, i+1, line)
			}
		}
	}
}

// sentence is one sentence of a page's prose: its words and the line it
// starts on.
type sentence struct {
	words []string
	line  int
}

// nameList says whether the sentence is a list of names: three quarters
// of its words or more are code spans.
func (s sentence) nameList() bool {
	code := 0
	for _, w := range s.words {
		if w == "`code`" {
			code++
		}
	}
	return 4*code >= 3*len(s.words)
}

// docSentences parses the markdown file (its path in the repository) and
// returns the sentences of its paragraphs, list items and quotes: not of
// headings, tables or code blocks.
func docSentences(t *testing.T, path string) []sentence {
	t.Helper()
	src, err := os.ReadFile(repoFile(path))
	if err != nil {
		t.Fatal(err)
	}
	// The line of an offset, found among the offsets of the file's
	// newlines (counting them in src[:off] for each word took seconds).
	var newlines []int
	for i, b := range src {
		if b == '\n' {
			newlines = append(newlines, i)
		}
	}
	lineAt := func(off int) int { return 1 + sort.SearchInts(newlines, off) }
	root := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	var out []sentence
	err = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *extast.Table, *ast.Heading, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			out = append(out, splitSentences(proseWords(n, src, lineAt))...)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// word is one word of prose and the line it is on.
type word struct {
	text string
	line int
}

// proseWords are the words of a block's inline text, in order; a code span
// is one word. lineAt is the line of an offset of src.
func proseWords(n ast.Node, src []byte, lineAt func(off int) int) []word {
	var ws []word
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.CodeSpan:
				line := 0
				if t, ok := c.FirstChild().(*ast.Text); ok {
					line = lineAt(t.Segment.Start)
				}
				ws = append(ws, word{text: "`code`", line: line})
			case *ast.Text:
				seg := c.Segment
				v := string(seg.Value(src))
				off := seg.Start
				for _, f := range strings.FieldsFunc(v, unicode.IsSpace) {
					i := strings.Index(v, f)
					ws = append(ws, word{text: f, line: lineAt(off + i)})
					v, off = v[i+len(f):], off+i+len(f)
				}
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return ws
}

// abbreviations end in a full stop and do not end a sentence.
var abbreviations = map[string]bool{"e.g.": true, "i.e.": true, "etc.": true, "vs.": true, "cf.": true}

// splitSentences cuts words at each full stop, question or exclamation
// mark that ends a word (closing quotes, brackets and emphasis aside).
// Words without a letter or digit (a lone dash, the stop after a code
// span) are not counted.
func splitSentences(ws []word) []sentence {
	var out []sentence
	var cur sentence
	for _, w := range ws {
		if strings.IndexFunc(w.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			if len(cur.words) == 0 {
				cur.line = w.line
			}
			cur.words = append(cur.words, w.text)
		}
		end := strings.TrimRight(w.text, `)]"'*_`+"`”’")
		if !abbreviations[strings.ToLower(end)] && strings.HasSuffix(end, ".") || strings.HasSuffix(end, "?") || strings.HasSuffix(end, "!") {
			if len(cur.words) > 0 {
				out = append(out, cur)
			}
			cur = sentence{}
		}
	}
	if len(cur.words) > 0 {
		out = append(out, cur)
	}
	return out
}
