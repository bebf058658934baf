package plan

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
)

// profile plans one profile instance.
func (b *builder) profile(p *config.Profile) *Change {
	rec := b.st.Profiles[p.Address]
	c := &Change{Address: p.Address, Kind: kind.Profile, Action: Read, Calls: 1, CallsMax: 1}
	gen := b.cfg.API.Generation
	switch {
	case rec == nil:
		c.Reason, c.Detail = ReasonNew, describePage(p)
		if f := b.st.Failures[p.Address]; f != nil {
			c.Detail += fmt.Sprintf(" (last attempt %s failed: %s)", ago(b.now, f.At), oneLine(f.Message))
		}
	case b.replace[p.Address]:
		c.Reason, c.Detail = ReasonReplace, fmt.Sprintf("replace requested; last read %s", ago(b.now, rec.ReadAt))
	case rec.Generation != gen:
		c.Reason, c.Detail = ReasonGenerationChanged, fmt.Sprintf("generation changed: %d -> %d", int(rec.Generation), int(gen))
	case !b.v.profileCurrent(p, rec):
		c.Reason, c.Detail = ReasonRequestChanged, "changed: "+describePage(p)
	case p.Refresh > 0 && b.now.Sub(rec.ReadAt) >= p.Refresh:
		c.Reason = ReasonRefresh
		c.Detail = fmt.Sprintf("last read %s (refresh = %s)", ago(b.now, rec.ReadAt), formatDuration(p.Refresh))
	default:
		c.Action, c.Reason, c.Calls, c.CallsMax = None, ReasonUpToDate, 0, 0
		c.Detail = fmt.Sprintf("read %s", ago(b.now, rec.ReadAt))
	}
	if c.CallsMax > 0 {
		b.shareRead(p, c)
	}
	if c.CallsMax > 0 || (c.SameAs != "" && b.running[c.SameAs] > 0) {
		// Its person comes with a read of this run.
		b.running[p.Address] = 1
	}
	return c
}

// shareRead makes the read planned for p (c) an update without a call
// when another profile block reads the same person (the same page name,
// as the network compares them: api.PageKey): one planned earlier in
// this run, whose answer apply records under both addresses; or, unless p
// is to be replaced, one whose read state holds and that is not older
// than p's refresh (no refresh: any). Otherwise p's read is the one later
// blocks of this page share.
func (b *builder) shareRead(p *config.Profile, c *Change) {
	key := api.PageKey(p.PageName)
	if key == "" {
		return
	}
	if b.reads == nil {
		b.reads = map[string]string{}
	}
	if from, ok := b.reads[key]; ok {
		c.Action, c.Reason, c.Calls, c.CallsMax, c.SameAs = Update, ReasonSamePerson, 0, 0, from
		c.Detail = fmt.Sprintf("same person as %s: read once (no call)", from)
		return
	}
	if !b.replace[p.Address] {
		if from, at := b.heldRead(p, key); from != "" {
			c.Action, c.Reason, c.Calls, c.CallsMax, c.SameAs = Update, ReasonSamePerson, 0, 0, from
			c.Detail = fmt.Sprintf("same person as %s, read %s: no call", from, ago(b.now, at))
			b.v.shared[p.Address] = from
			return
		}
	}
	b.reads[key] = p.Address
}

// heldRead returns the profile address, other than p's, whose read of the
// page key state holds, of the configured generation, with its person in
// state (and not removed by retention first), from a profile block of the
// configuration (so that apply does not forget it first), not older than
// p's refresh: the newest such read (the first address on a tie), "" when
// none.
func (b *builder) heldRead(p *config.Profile, key string) (string, time.Time) {
	if b.held == nil {
		b.held = map[string][]string{}
		for _, q := range b.cfg.Profiles {
			rec := b.st.Profiles[q.Address]
			if rec == nil || rec.Generation != b.cfg.API.Generation || rec.PersonID == "" {
				continue
			}
			if person := b.st.Person(rec.PersonID); person == nil || b.v.gone[person] {
				continue // retention removes them (and the read) first
			}
			var req api.PageRequest
			if json.Unmarshal(rec.Request, &req) != nil {
				continue
			}
			if k := api.PageKey(req.Page()); k != "" {
				b.held[k] = append(b.held[k], q.Address)
			}
		}
	}
	best, at := "", time.Time{}
	for _, q := range b.held[key] {
		rec := b.st.Profiles[q]
		if q == p.Address || (p.Refresh > 0 && b.now.Sub(rec.ReadAt) >= p.Refresh) {
			continue
		}
		if best == "" || rec.ReadAt.After(at) {
			best, at = q, rec.ReadAt
		}
	}
	return best, at
}
