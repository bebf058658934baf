package run

import (
	"context"
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
)

// FieldsError is a failed read of the field list from the service.
type FieldsError struct{ Err error }

func (e *FieldsError) Error() string { return "reading the field list: " + e.Err.Error() }
func (e *FieldsError) Unwrap() error { return e.Err }

// RefreshFields reads the searchable-field catalog from svc (one call) and
// caches it at cachePath, stamped now, for validate and plan to check
// against. It returns the catalog as cached and how many fields the
// service listed. A failed call is a *FieldsError and writes nothing.
func RefreshFields(ctx context.Context, svc api.Service, cachePath string, now time.Time) (*catalog.Catalog, int, error) {
	fields, err := svc.Fields(ctx)
	if err != nil {
		return nil, 0, &FieldsError{Err: err}
	}
	if err := catalog.SaveCache(cachePath, fields, now); err != nil {
		return nil, 0, fmt.Errorf("the service's field list was not cached: %w", err)
	}
	fresh, err := catalog.LoadCache(cachePath)
	if err != nil {
		return nil, 0, err
	}
	return fresh, len(fields), nil
}
