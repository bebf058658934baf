package plan

import (
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// retention plans the removal of the people no search or profile read has
// seen for leadsync { retention }: one forget change for them all, first,
// so that apply removes them before anything else and the enrich blocks
// planned after it leave them out. A plan limited by targets removes
// nobody.
func (b *builder) retention() {
	r := b.cfg.Settings.Retention
	if !b.retains() {
		return
	}
	ids := b.expired()
	n := ids.Len()
	if n == 0 {
		return
	}
	b.v.gone = map[*state.Person]bool{}
	for _, id := range ids.All() {
		if p := b.st.People[id]; p != nil { // else only in the kept form
			b.v.gone[p] = true
		}
	}
	if b.opts.Expired != nil {
		b.v.goneKept = b.opts.Expired.gone.moved(b.opts.Moved)
		b.v.keptGC(b.opts.Expired)
	}
	b.removed = &removal{ids: ids, c: &Change{
		Address: state.PeopleAddress, Kind: kind.People, Action: Forget, Reason: ReasonRetention,
		Detail: fmt.Sprintf("%s not seen by any search for %s (retention) %s the state with their enrichments",
			plural(n, "person", "people"), retentionText(r), map[bool]string{true: "leaves", false: "leave"}[n == 1]),
	}}
	b.add(b.removed.c)
}

// removal is the retention change and the people it removes, packed
// while Build runs (1,000,000 IDs take 18 MB, not 32 MB of strings):
// they become its PersonIDs as Build returns (unpack).
type removal struct {
	c   *Change
	ids state.IDList
}

// unpack sets the PersonIDs of the retention change.
func (r *removal) unpack() {
	if r != nil {
		r.c.PersonIDs = r.ids.Strings()
	}
}

// retentionText writes a retention as it is usually configured: whole days
// as "180d", else the duration's own form.
func retentionText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return config.FormatDuration(d)
}

// forgets plans the addresses state has and the configuration does not.
func (b *builder) forgets() {
	known := map[string]bool{}
	for _, s := range b.cfg.Searches {
		known[s.Address] = true
	}
	for _, p := range b.cfg.Profiles {
		known[p.Address] = true
	}
	for _, im := range b.cfg.Imports {
		known[im.Address] = true
	}
	for _, sa := range b.stateAddresses() {
		addr := sa.addr
		if known[addr] || !b.selected(addr) {
			continue
		}
		c := &Change{Address: addr, Action: Forget, Reason: ReasonRemoved}
		switch sa.kind {
		case kind.Import:
			c.Kind = kind.Import
			n := 0
			if rec := b.st.Imports[addr]; rec != nil {
				n = len(rec.PersonIDs)
			}
			c.Detail = fmt.Sprintf("its %s leave the exports; their e-mails are kept", plural(n, "person", "people"))
		case kind.Search:
			c.Kind = kind.Search
			n := b.st.LeadCount(addr)
			c.Detail = fmt.Sprintf("its %s leave the exports; enrichments are kept", plural(n, "lead", "leads"))
		default:
			c.Kind = kind.Profile
			c.Detail = "its person leaves the exports; enrichments are kept"
		}
		switch {
		case b.st.Searches[addr] == nil && b.st.Splits[addr] != nil:
			c.Detail = "only a split run stopped in the middle is recorded; its people leave no export"
		case b.st.Searches[addr] == nil && b.st.Profiles[addr] == nil && b.st.Imports[addr] == nil:
			c.Detail = "only a failed attempt is recorded"
		}
		b.add(c)
	}
}
