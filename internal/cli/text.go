package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/config"
)

// plural formats n with an English noun, pluralised: "1 call", "2 calls",
// "3 people", "2 addresses", "2 search blocks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "person"):
		noun = strings.TrimSuffix(noun, "person") + "people"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "x"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// liveCatalogNote says which live field list the filters were checked
// against, or "" when it was the built-in one.
func liveCatalogNote(cfg *config.Config) string {
	c := cfg.Catalog
	if c == nil || c.Source == catalog.SourceBuiltin || c.Source == "" {
		return ""
	}
	src := c.Source
	if rel, err := filepath.Rel(cfg.Dir, src); err == nil && !strings.HasPrefix(rel, "..") {
		src = rel
	}
	if !c.FetchedAt.IsZero() {
		src += " (fetched " + c.FetchedAt.UTC().Format(time.RFC3339) + ")"
	}
	return "Search filters were checked against the live field list in " + src + "."
}
