package cli

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/views"
)

// liveCatalogNote says which live field list the filters were checked
// against, or "" when it was the built-in one (views.LiveCatalogNote,
// which plan prints after its diagnostics).
func liveCatalogNote(cfg *config.Config) string { return views.LiveCatalogNote(cfg) }
