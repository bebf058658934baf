package config

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// Track is a track block: the people of its sources, watched with one
// profile read each per Every.
type Track struct {
	Address string // track.champions; module.dach.track.champions in a module
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr   address.Address
	Name   string
	Module string // as Search.Module
	// From are the referenced blocks or instances, as addresses, in order:
	// searches and profiles ("search.cto", "search.cto[\"Berlin\"]",
	// "profile.founder") and enrich blocks ("enrich.cto_contacts": the
	// people it enriched).
	From []string
	// Every is how often each person is read; DefaultTrackEvery when unset.
	Every     time.Duration
	DeclRange hcl.Range
}

// DefaultTrackEvery is a track's every when unset: a month, the pace at
// which job changes matter to a sales list.
const DefaultTrackEvery = 30 * 24 * time.Hour

var trackSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "every"}, {Name: "for_each"}, {Name: "count"},
}}

func (l *loader) decodeTrack(b *hcl.Block) {
	content, _ := l.content(b, trackSchema, "A track block")
	l.noRepeat(content, "a track block already reads every person of its from list. To watch groups at different paces, write several track blocks.")
	t := &Track{Address: l.prefix + "track." + b.Labels[0], Addr: l.blockAddr(kind.Track, b.Labels[0], ""), Name: b.Labels[0], Module: l.modulePath(), Every: DefaultTrackEvery, DeclRange: b.DefRange}
	at := content.Attributes
	if a := at["from"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing from", "A track block needs from, the search, profile, import and enrich blocks whose people it watches, like from = [enrich.cto_contacts, profile.founder].")
	} else {
		t.From = l.trackFrom(a, t)
	}
	if a := at["every"]; a != nil {
		if d, astate := l.durationAttr(a, l.base, scope{}); astate == ok {
			t.Every = d
			if d < 24*time.Hour {
				l.warnf(a.Expr.Range().Ptr(), "Track reads more than once a day",
					"every = %q reads each person's profile again after %s: %s track reads per person a month, each a request of the monthly quota (0 credits). A job change shows within weeks; every = \"7d\" or \"30d\" is plenty.",
					FormatDuration(d), FormatDuration(d), readsPerMonth(d))
			}
		}
	}
	l.cfg.Tracks = append(l.cfg.Tracks, t)
}

// readsPerMonth says how many reads every d makes in 30 days.
func readsPerMonth(d time.Duration) string {
	return fmt.Sprintf("%d", int((30*24*time.Hour)/d))
}

// trackRefs are the references of a track's from list: searches and
// profiles as in an enrich block's from, and enrich blocks (the people they
// enriched), or outputs of module calls that give them.
var trackRefs = refList{attr: "from", kinds: []kind.Kind{kind.Search, kind.Profile, kind.Import, kind.Enrich},
	empty:     "from lists at least one search, profile, import or enrich block, like from = [enrich.cto_contacts].",
	wrongKind: trackWrongKind}

// trackWrongKind words a track's from naming a block of another kind:
// what from takes, with an example, and for a track, how to watch its
// people.
func trackWrongKind(root string) (summary, detail string) {
	detail = fmt.Sprintf("from lists the blocks whose people the track watches: search, profile, import and enrich blocks (the people an enrich block enriched), or outputs of module calls that give them, like from = [search.cto, profile.founder, import.evaboot, enrich.cto_contacts]; %q is none of them.", root)
	if kind.Kind(root) == kind.Track {
		detail = "A track cannot watch another track's people: list that track's sources here (a person two tracks watch is read once per run). " + detail
	}
	return "Invalid from reference", detail
}

// trackFrom decodes a track's from list. A source that has no people (a
// block whose for_each is empty or whose count is 0, or an enrich block of
// such sources only) is a warning, given once every module is read
// (checkTracks): the track watches nobody of it.
func (l *loader) trackFrom(a *hcl.Attribute, t *Track) []string {
	refs, _ := l.refsAt(a, trackRefs)
	var out []string
	for _, r := range refs {
		out = append(out, r.addr)
		l.trackSources = append(l.trackSources, trackSource{t, r})
	}
	return out
}

// trackSource is a source of a track, and where it is named.
type trackSource struct {
	track *Track
	ref   refAt
}

// checkTracks warns of each track source that has no people, once every
// module is read and the instances are known.
func (l *loader) checkTracks() {
	for _, ts := range l.trackSources {
		if len(l.cfg.TrackSources([]string{ts.ref.addr})) == 0 {
			l.warnf(ts.ref.rng.Ptr(), "Track of a source with no people",
				"%s has no instances (its for_each is empty or its count is 0), so %s watches nobody of it and makes no call for it. Remove it from from, or give it instances.", ts.ref.addr, ts.track.Address)
		}
	}
}

// TrackSources returns the instances whose people a track's from list
// names: the searches and profiles it lists, and those of the enrich
// blocks it lists, in order, each once.
func (c *Config) TrackSources(from []string) []string {
	var refs []string
	for _, r := range from {
		if e := c.Enrich(r); e != nil {
			refs = append(refs, e.From...)
			continue
		}
		refs = append(refs, r) // a search, a profile or an import
	}
	return c.Resolve(refs)
}

// Enrich returns the enrich block of an address, nil when none.
func (c *Config) Enrich(addr string) *Enrich {
	for _, e := range c.Enriches {
		if e.Address == addr {
			return e
		}
	}
	return nil
}

// Track returns the track block of an address, nil when none.
func (c *Config) Track(addr string) *Track {
	for _, t := range c.Tracks {
		if t.Address == addr {
			return t
		}
	}
	return nil
}
