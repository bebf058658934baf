package catalog

import (
	"time"

	"github.com/leadsync/leadsync/internal/api"
)

// Catalog is a searchable-field list and where it came from.
type Catalog struct {
	Fields []api.Field
	// Source says where the list came from: "built-in" or the cache path.
	Source string
	// FetchedAt is when a live copy was fetched; zero for the built-in list.
	FetchedAt time.Time
}
