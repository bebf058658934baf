package cli

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/config"
)

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
