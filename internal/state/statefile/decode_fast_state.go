package statefile

import (
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// decodeFast parses a whole state file. Unknown keys are skipped, as
// encoding/json does; keys are matched exactly (the file is written by
// leadsync).
func decodeFast(src string) (*state.State, error) {
	d := &decoder{src: src}
	return d.state()
}

// state decodes a whole state file from d's position.
func (d *decoder) state() (*state.State, error) {
	s := &state.State{}
	if d.peek() != '{' {
		return nil, d.typeErr("an object")
	}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "format_version":
			s.FormatVersion, err = d.int()
		case "lineage":
			s.Lineage, err = d.strOrNull()
		case "serial":
			s.Serial, err = d.uint64()
		case "leadsync_version":
			s.LeadsyncVersion, err = d.strOrNull()
		case "service":
			s.Service, err = d.strOrNull()
		case "configuration":
			s.Configuration, err = d.strOrNull()
		case "journal":
			if !d.null() {
				s.Journal = &state.JournalMark{}
				err = d.std(s.Journal)
			}
		case "usage":
			err = d.std(&s.Usage)
		case "failures":
			err = d.std(&s.Failures)
		case "unknown_enrichments":
			err = d.std(&s.UnknownEnrichments)
		case "suppressed":
			err = d.std(&s.Suppressed)
		case "erased_enrichments":
			err = d.std(&s.ErasedEnrichments)
		case "splits":
			err = d.std(&s.Splits)
		case "imports":
			err = d.std(&s.Imports)
		case "marks":
			err = d.std(&s.Marks)
		case "profiles":
			err = d.std(&s.Profiles)
		case "searches":
			if s.Searches == nil {
				s.Searches = map[string]*state.Search{}
			}
			err = d.object(func(addr string) error {
				if d.null() {
					s.Searches[addr] = nil
					return nil
				}
				sr, err := d.search()
				s.Searches[addr] = sr
				return err
			})
		case "people":
			err = d.people(s)
		default:
			_, err = d.skip()
		}
		if err != nil && s.FormatVersion > state.FormatVersion {
			return &decodeError{newer: s.FormatVersion, writtenBy: s.LeadsyncVersion}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if d.peek() != 0 {
		return nil, d.fail("not valid JSON: data after the end of the state")
	}
	return s, nil
}

// people reads the people object into s.People, on every core when it
// can (peopleParallel).
func (d *decoder) people(s *state.State) error {
	d.peek()
	d.peopleKeys, d.peopleAt = d.peopleKeys+1, d.pos
	if s.People == nil {
		s.People = make(map[string]*state.Person, len(d.src)/600)
	}
	if d.peopleParallel(s.People) {
		return nil
	}
	return d.object(func(id string) error {
		if d.null() {
			s.People[id] = nil
			return nil
		}
		p, err := d.person()
		s.People[id] = p
		return err
	})
}

func (d *decoder) search() (*state.Search, error) {
	sr := &state.Search{}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "address":
			sr.Address, err = d.strOrNull()
		case "generation":
			var g int
			g, err = d.int()
			sr.Generation = api.Generation(g)
		case "request":
			sr.Request, err = d.raw()
		case "request_hash":
			sr.RequestHash, err = d.strOrNull()
		case "ran_at":
			sr.RanAt, err = d.time()
		case "result_count":
			sr.ResultCount, err = d.int()
		case "max_results":
			sr.MaxResults, err = d.int()
		case "runs":
			sr.Runs, err = d.int()
		case "changed":
			sr.Changed, err = d.int()
		case "capped":
			sr.Capped, err = d.bool()
		case "lead_ids":
			sr.LeadIDs, err = d.strings(sr.LeadIDs)
		case "added":
			sr.Added, err = d.int()
		case "removed":
			sr.Removed, err = d.int()
		case "suppressed":
			sr.Suppressed, err = d.int()
		case "split":
			if !d.null() {
				sr.Split = &state.SplitTree{}
				err = d.std(sr.Split)
			}
		default:
			_, err = d.skip()
		}
		return err
	})
	return sr, err
}

func (d *decoder) strings(into []string) ([]string, error) {
	if d.null() {
		return nil, nil
	}
	out := into[:0]
	if out == nil {
		out = []string{}
	}
	err := d.array(func() error {
		s, err := d.str()
		out = append(out, d.keep(s))
		return err
	})
	return out, err
}

// sharedList reads a list of strings, returning the same backing array for
// the same text. The slices have len == cap, so an append copies.
func (d *decoder) sharedList() ([]string, error) {
	if d.null() {
		return nil, nil
	}
	start := d.pos
	// The text first: a list seen before is not decoded again.
	text, err := d.skip()
	if err != nil {
		d.pos = start
	} else if shared, ok := d.lists[text]; ok {
		return shared, nil
	}
	d.pos = start
	list, err := d.strings(nil)
	if err != nil || list == nil {
		return list, err
	}
	if d.lists == nil {
		d.lists = map[string][]string{}
	}
	list = list[:len(list):len(list)]
	if len(d.lists) < 1<<16 {
		d.lists[text] = list
	}
	return list, nil
}

func (d *decoder) person() (*state.Person, error) {
	if len(d.slab) == 0 {
		d.slab = make([]state.Person, 1024)
	}
	p := &d.slab[0]
	d.slab = d.slab[1:]
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "id":
			p.ID, err = d.strOrNull()
		case "lead":
			err = d.lead(&p.Lead)
		case "first_seen":
			p.FirstSeen, err = d.time()
		case "last_seen":
			p.LastSeen, err = d.time()
		case "found_by":
			p.FoundBy, err = d.sharedList()
		case "profile":
			if !d.null() {
				p.Profile = &person.Profile{}
				err = d.std(p.Profile)
			}
		case "profile_read_at":
			p.ProfileReadAt, err = d.timePtr()
		case "enrichment":
			if !d.null() {
				p.Enrichment, err = d.enrichment()
			}
		case "raw":
			p.Raw, err = d.raw()
		case "history":
			p.History, err = d.history()
		case "status":
			p.Status, err = d.strOrNull()
		case "status_since":
			p.StatusSince, err = d.timePtr()
		case "checked_at":
			p.CheckedAt, err = d.timePtr()
		case "checked_generation":
			var g int
			g, err = d.int()
			p.CheckedGeneration = api.Generation(g)
		case "tracked":
			p.Tracked, err = d.tracked()
		default:
			_, err = d.skip()
		}
		return err
	})
	return p, err
}

// tracked reads a person's track reads: an object of times by track
// address; nil when null or empty.
func (d *decoder) tracked() (map[string]time.Time, error) {
	var out map[string]time.Time
	err := d.object(func(addr string) error {
		at, err := d.time()
		if err != nil {
			return err
		}
		if out == nil {
			out = map[string]time.Time{}
		}
		out[addr] = at
		return nil
	})
	return out, err
}

// history reads a person's history: a list of drifts.
func (d *decoder) history() ([]state.Drift, error) {
	// Most histories are short: room for two without growing.
	out := make([]state.Drift, 0, 2)
	err := d.array(func() error {
		var h state.Drift
		err := d.object(func(key string) error {
			var err error
			switch key {
			case "field":
				h.Field, err = d.strOrNull()
			case "before":
				h.Before, err = d.strOrNull()
			case "after":
				h.After, err = d.strOrNull()
			case "at":
				h.At, err = d.time()
			case "by":
				h.By, err = d.strOrNull()
			case "call":
				h.Call, err = d.strOrNull()
			default:
				_, err = d.skip()
			}
			return err
		})
		out = append(out, h)
		return err
	})
	return out, err
}

func (d *decoder) enrichment() (*state.Enrichment, error) {
	e := &state.Enrichment{}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "enriched_at":
			e.EnrichedAt, err = d.time()
		case "by":
			e.By, err = d.strOrNull()
		case "result":
			err = d.enriched(&e.Result)
		case "copied_by":
			e.CopiedBy, err = d.strOrNull()
		default:
			_, err = d.skip()
		}
		return err
	})
	return e, err
}

// personEntry is one "id": {...} of the people object.
type personEntry struct {
	id string
	p  *state.Person
}

// minParallel is the size of the people section below which one core
// decodes it (a variable for tests).
var minParallel = 8 << 20

// peopleParallel decodes the people object on several cores when the file
// has the layout leadsync writes (one person per line, "\n    \"" before
// each ID). It cuts the object at such line starts, decodes the pieces at
// once, and checks that each piece ends exactly where the next begins; as
// the first piece starts right after the "{", every cut is then known to
// fall between two people. It returns false, having consumed nothing, when
// the layout is not recognised or any piece fails: the caller then decodes
// the object itself (and reports errors with their exact place).
func (d *decoder) peopleParallel(into map[string]*state.Person) bool {
	workers := runtime.GOMAXPROCS(0)
	if workers > 8 {
		workers = 8
	}
	if d.peek() != '{' || workers < 2 || len(d.src)-d.pos < minParallel {
		return false
	}
	body := d.pos + 1
	const sep = "\n    \""
	cuts := []int{body}
	for k := 1; k < workers; k++ {
		target := body + (len(d.src)-body)*k/workers
		i := strings.Index(d.src[target:], sep)
		if i < 0 {
			break
		}
		if cut := target + i + len(sep) - 1; cut > cuts[len(cuts)-1] {
			cuts = append(cuts, cut)
		}
	}
	if len(cuts) < 2 {
		return false
	}
	// Every piece but the last: entries each followed by a comma, ending
	// exactly at the next cut. The last piece runs to the closing brace.
	parts := make([][]personEntry, len(cuts))
	oks := make([]bool, len(cuts))
	ends := make([]int, len(cuts))
	panics := make([]error, len(cuts)) // a bug, raised again here
	var wg sync.WaitGroup
	for k := range cuts {
		end, last := len(d.src), k == len(cuts)-1
		if !last {
			end = cuts[k+1]
		}
		wg.Add(1)
		go func(k, start, end int, last bool) {
			defer wg.Done()
			defer recovered.Catch(&panics[k])
			sub := &decoder{src: d.src[:end], pos: start}
			entries, ok := sub.peopleEntries(last, nil)
			parts[k], oks[k], ends[k] = entries, ok, sub.pos
		}(k, cuts[k], end, last)
	}
	wg.Wait()
	recovered.Raise(recovered.First(panics...))
	for k := range cuts {
		if !oks[k] || (k < len(cuts)-1 && ends[k] != cuts[k+1]) {
			return false
		}
	}
	for _, part := range parts {
		for _, e := range part {
			into[e.id] = e.p
		}
	}
	d.pos = ends[len(ends)-1]
	return true
}

// peopleEntries decodes "id": person pairs up to the end of src (each
// followed by a comma), or, when last, up to and including the closing
// brace of the people object. They are appended to out[:0] (nil: a new
// slice).
func (d *decoder) peopleEntries(last bool, out []personEntry) ([]personEntry, bool) {
	if out == nil {
		out = make([]personEntry, 0, (len(d.src)-d.pos)/400+1) // people take ~500 bytes
	}
	out = out[:0]
	for {
		// The end of a piece is the end of src, not a NUL byte in it
		// (which peek gives as it gives the end).
		if !last && d.peek() == 0 && d.pos >= len(d.src) {
			return out, true
		}
		if last && d.peek() == '}' {
			d.pos++
			return out, true
		}
		id, err := d.str()
		if err != nil || d.expect(':') != nil {
			return nil, false
		}
		id = d.keep(id)
		var p *state.Person
		if !d.null() {
			if p, err = d.person(); err != nil {
				return nil, false
			}
		}
		out = append(out, personEntry{id, p})
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			if !last {
				return nil, false
			}
			d.pos++
			return out, true
		default:
			return nil, false
		}
		if last && d.peek() == '}' {
			return nil, false // a trailing comma: not JSON
		}
	}
}
