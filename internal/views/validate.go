package views

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/config"
)

// ValidateSuccess is the human form of a valid configuration in
// `leadsync validate`: what it declares, and which live field list its
// filters were checked against (when not the built-in one).
func ValidateSuccess(w io.Writer, cfg *config.Config) error {
	lw := newLineWriter(w)
	lw.printf("Success! The configuration is valid: %s.\n", ConfigSummary(cfg))
	if note := LiveCatalogNote(cfg); note != "" {
		lw.printf("%s\n", note)
	}
	return lw.flush()
}

// ConfigSummary counts what a configuration declares, for the success
// line.
func ConfigSummary(cfg *config.Config) string {
	blocks := map[string]bool{}
	for _, s := range cfg.Searches {
		blocks[s.Block] = true
	}
	searchBlocks := len(blocks)
	tracks := ""
	if n := len(cfg.Tracks); n > 0 {
		tracks = ", " + Plural(n, "track block")
	}
	s := fmt.Sprintf("%s (%s), %s, %s%s, %s",
		Plural(searchBlocks, "search block"), Plural(len(cfg.Searches), "search"),
		Plural(len(cfg.Profiles), "profile"), Plural(len(cfg.Enriches), "enrich block"), tracks,
		Plural(len(cfg.Exports), "export"))
	if len(cfg.Modules) > 0 {
		// Counted across every module instance, which the modules add.
		s += ", in " + Plural(len(cfg.Modules), "module instance") + " and the root"
	}
	return s
}

// LiveCatalogNote says which live field list the filters were checked
// against, or "" when it was the built-in one.
func LiveCatalogNote(cfg *config.Config) string {
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
