package sqlstate

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/leadsync/leadsync/internal/state"
)

// A retention removal of people read in the removal form alone does not
// read the lead lists of the searches that found them (state.Changes.Cut):
// the store cuts those lists itself, one statement for all of them, once
// it has deleted the people. Each list keeps, in its order, the IDs of
// the people the store still holds; the people a write makes again are
// written after it. Both engines run the same statement but for the
// list's form (Dialect.keptList): a JSON array on SQLite, a text[] on
// PostgreSQL.

// heldLead is the condition that the lead ID id names a person the
// workspace $1 holds.
func heldLead(id string) string {
	return `EXISTS (SELECT 1 FROM {s}.people p WHERE p.workspace = $1 AND p.id = ` + id + `)`
}

// CutLeadLists is the statement, in d, that cuts the lead lists of the
// searches of workspace $1 whose addresses are the list $2 (Dialect.List's
// value): each keeps the IDs of the people the workspace holds, in their
// order. A search without a list keeps none.
func CutLeadLists(d *Dialect) string {
	return `UPDATE {s}.searches SET lead_ids = ` + d.keptList("lead_ids", heldLead) +
		` WHERE workspace = $1 AND lead_ids IS NOT NULL AND ` + d.inList("address", "$2")
}

// CutAddrs are the addresses of the searches whose lead lists ch has the
// store cut (state.Changes.Cut), sorted; nil for none.
func CutAddrs(ch *state.Changes) []string {
	if len(ch.Cut) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(ch.Cut))
}

// cutLists cuts, in w's transaction, the lead lists ch names
// (CutLeadLists): after the people are deleted, before any is written.
func (w *Writer) cutLists(ctx context.Context, ch *state.Changes) error {
	addrs := CutAddrs(ch)
	if addrs == nil {
		return nil
	}
	list, err := w.D.List(addrs)
	if err != nil {
		return err
	}
	if _, err := w.exec(ctx, CutLeadLists(w.D), w.WS, list); err != nil {
		return fmt.Errorf("cutting the lead lists of %d searches: %w", len(addrs), err)
	}
	return nil
}
