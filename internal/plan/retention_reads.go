package plan

import (
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// maxExpiredRead is the most people leadsync { retention } removes that a
// plan reads whole instead of every person: each read whole costs about
// what a thousandth of 1,000,000 people loaded costs; beyond, the plan
// reads everyone (the first plan after retention is set on an old base).
var maxExpiredRead = 200_000

// Expired are the people a store found that leadsync { retention }
// removes at the plan's time (ExpiredOf): Build asks each of them, read
// whole, instead of every person (state.Expired).
type Expired struct {
	// IDs are sorted; they may hold a few people seen just after the
	// limit (a store keeps microseconds): Build asks each person. Packed:
	// 1,000,000 IDs take 18 MB, not 32 MB of strings.
	IDs state.IDList
	// Kept: more than maxExpiredRead: a plan, and an apply, read them in
	// the kept form (ReadKept), not whole; the apply's fold of their
	// removal reads what it changes (state.State.Fold).
	Kept bool
	// retention and now tell ReadKept who goes.
	retention time.Duration
	now       time.Time
	// gone are those ReadKept read in the kept form.
	gone *keptGone
}

// ExpiredStore finds the people retention removes (state.Base).
type ExpiredStore interface {
	ExpiredIDs(retention time.Duration, now time.Time, n int) ([]string, bool, error)
}

// ExpiredOf asks ix for the people leadsync { retention } removes in the
// plan of opts (no target: a targeted plan removes nobody) at opts.Now,
// so that the plan reads them whole and nobody else for them (ReadsOf),
// or, more than maxExpiredRead, in the kept form (Expired.Kept): nil when
// retention plans nothing, opts.Now is unset, or more than maxExpiredKept
// are to go or the store cannot list them. Build must then be given the
// same opts.Now.
func ExpiredOf(cfg *config.Config, opts Options, ix ExpiredStore) (*Expired, error) {
	if cfg.Settings.Retention <= 0 || len(opts.Targets) > 0 || opts.Now.IsZero() {
		return nil, nil
	}
	ids, ok, err := ix.ExpiredIDs(cfg.Settings.Retention, opts.Now, max(maxExpiredRead, maxExpiredKept))
	if err != nil || !ok {
		return nil, err
	}
	return &Expired{IDs: state.PackIDs(ids), Kept: len(ids) > maxExpiredRead, retention: cfg.Settings.Retention, now: opts.Now}, nil
}

// retains reports whether the plan removes the people leadsync
// { retention } names: no target limits it.
func (b *builder) retains() bool {
	return b.cfg.Settings.Retention > 0 && b.sel == nil
}

// expiredRead says a plan that removes people for retention knows them
// from its store (Options.Expired), so reads them alone.
func (b *builder) expiredRead() bool {
	return b.retains() && b.opts.Expired != nil
}

// expired are the people retention removes (state.Expired): of those the
// store named (Options.Expired), read whole, the ones that are, else of
// every person.
func (b *builder) expired() state.IDList {
	r := b.cfg.Settings.Retention
	if b.opts.Expired == nil {
		return state.IDsOf(b.st.Expired(r, b.now))
	}
	ids, kept := b.opts.Expired.IDs, b.opts.Expired.gone
	var out []string // nil while all go so far: ids.Head(i)
	for i, id := range ids.All() {
		// Someone read in the kept form goes, even where st holds a
		// sketch of them (EnrichFacts.Fill), which tells no last_seen.
		p := b.st.People[id]
		goes := kept.keptAt(i) || p != nil && b.now.Sub(p.LastSeen) > r
		switch {
		case goes && out != nil:
			out = append(out, id)
		case !goes && out == nil:
			out = ids.Head(i).AppendTo(make([]string, 0, ids.Len()))
		}
	}
	if out == nil && ids.Sorted() {
		return ids // all go: the IDs listed, not a copy
	}
	if out == nil { // all go, out of order: sorted in a copy, not the caller's list
		out = ids.AppendTo(make([]string, 0, ids.Len()))
	}
	slices.Sort(out)
	return state.IDsOf(slices.Compact(out))
}
