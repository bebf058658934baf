package api

import "github.com/leadsync/leadsync/internal/person"

import "context"

// Service is the lead service as the rest of leadsync sees it. *Client
// implements it over HTTP; tests may substitute a fake.
type Service interface {
	// Fields returns the searchable-field catalog (first generation).
	Fields(ctx context.Context) ([]Field, error)
	// Search runs one search in the given generation.
	Search(ctx context.Context, gen Generation, req SearchRequest) (*SearchResult, error)
	// Page reads one profile in the given generation.
	Page(ctx context.Context, gen Generation, req PageRequest) (*person.Profile, error)
	// Enrich enriches one profile (first generation); it spends credits.
	Enrich(ctx context.Context, req PageRequest) (*person.EnrichedProfile, error)
	// Billing reads the remaining requests this month (first generation).
	Billing(ctx context.Context) (*Usage, error)
}
