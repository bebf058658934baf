package config

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// The bounds of what a configuration may hold, so that big inputs cost
// what they should: a mistake (a generated file gone wrong, a pasted
// dump) is refused early, with the limit named, instead of taking minutes
// and gigabytes, or being sent to the service with every call.
const (
	// MaxConfigBytes bounds the *.leads.hcl files together, and each
	// variables file: checked before they are parsed (a 50 MB
	// configuration of 500,000 blocks took 5.1 GB to read).
	MaxConfigBytes = 2 << 20
	// MaxBlocks bounds the top-level blocks of the configuration files
	// together; for_each and count repeat a block without writing it out.
	MaxBlocks = 5000
	// MaxTextValue bounds keywords and every text filter of a search: they
	// are sent with every call of the search, and the service matches
	// words, not documents.
	MaxTextValue = 1000
	// MaxURLValue bounds search_url and profile_url (a browser's address
	// bar takes about 2,000 characters).
	MaxURLValue = 4096
	// MaxPageName bounds a profile's page_name, a short identifier.
	MaxPageName = 200
)

// configSize checks, before they are read, that the configuration files
// names of fsys (the folder dir of the configuration), with those read
// before them, hold at most MaxConfigBytes together. It reports false
// (and an error naming the largest files) when they hold more.
func (l *loader) configSize(fsys fs.FS, dir string, names []string) bool {
	total := l.configBytes
	sizes := map[string]int64{}
	for _, name := range names {
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			continue // ReadFile says why
		}
		sizes[name] = fi.Size()
		total += fi.Size()
	}
	if total <= MaxConfigBytes {
		l.configBytes = total
		return true
	}
	biggest := names[0]
	for _, n := range names {
		if sizes[n] > sizes[biggest] {
			biggest = n
		}
	}
	l.errorf(nil, "Configuration too large",
		"The configuration files hold %s (%s alone %s); leadsync reads at most %s of them, so that a mistake such as a generated or pasted file costs no time or memory. Repeat blocks with for_each or count, and keep long lists (people to exclude, cities) in a file the configuration reads.",
		byteSize(total), path.Join(dir, biggest), byteSize(sizes[biggest]), byteSize(MaxConfigBytes))
	return false
}

// varFileSize checks a variables file's size before it is parsed.
func (l *loader) varFileSize(name string, src []byte) bool {
	if len(src) <= MaxConfigBytes {
		return true
	}
	l.errorf(nil, "Variables file too large",
		"%s holds %s; a variables file may hold at most %s.", name, byteSize(int64(len(src))), byteSize(MaxConfigBytes))
	return false
}

// blockCount adds the top-level blocks of f to those read before (module
// folders included) and reports false (with an error at the first block
// past the limit) once they are more than MaxBlocks, before any of them is
// decoded.
func (l *loader) blockCount(f *hcl.File) bool {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return true
	}
	if l.nblocks+len(body.Blocks) <= MaxBlocks {
		l.nblocks += len(body.Blocks)
		return true
	}
	over := body.Blocks[MaxBlocks-l.nblocks]
	l.errorf(over.DefRange().Ptr(), "Too many blocks",
		"The configuration has more than %s blocks; at most %s are read. Repeat a search or profile with for_each or count (up to %s instances each) rather than writing each one out.",
		textfmt.Thousands(MaxBlocks), textfmt.Thousands(MaxBlocks), textfmt.Thousands(maxCount))
	return false
}

// valueLength checks the length of a value that is sent to the service
// (v, of attribute a) against max characters, and reports whether it is
// within it. The value itself is not repeated: it may be long, or
// sensitive.
func (l *loader) valueLength(a *hcl.Attribute, v string, max int) bool {
	n := utf8.RuneCountInString(v)
	if n <= max {
		return true
	}
	l.errorf(a.Expr.Range().Ptr(), "Value too long",
		"%s is %s characters long; at most %s are allowed. It is sent to the service with every call it makes; shorten it.",
		a.Name, textfmt.Thousands(n), textfmt.Thousands(max))
	return false
}

// byteSize writes a size for people: "52.4 MB", "4 MB", "812 KB".
func byteSize(n int64) string {
	const mb = 1 << 20
	switch {
	case n >= mb && n%mb == 0:
		return fmt.Sprintf("%d MB", n/mb)
	case n >= mb:
		// Rounded up: a size over a limit never reads as the limit.
		return fmt.Sprintf("%.1f MB", math.Ceil(float64(n)*10/mb)/10)
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
