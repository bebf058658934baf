package plan

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/state"
)

// A block with a where that can take no place (countOnly) evaluates its
// where on each of its people to enrich, in the plan's order, so that it
// fails on the same person as the whole state's plan. The census reads
// them whole a page at a time as collectCensus meets them
// (candidatePages): those who pass where are counted by ID, as countOnly
// counts the people of a block without a where, and released; the
// others (failing where, excluded) are kept as the plan keeps them. The
// memory is then the page and the people kept, not every person to
// enrich.

// censusPage is how many people to enrich candidatePages reads whole at
// a time (a variable for tests).
var censusPage = state.PeoplePage

// candidatePages reads whole, in pages, the census' people to enrich of
// a block that only counts them (countOnly) but has a where.
type candidatePages struct {
	f       *EnrichFacts
	ids     *placedIDs // the people to enrich not read, in the plan's order
	next    int        // the index in ids of the next one met
	end     int        // the end in ids of the page read
	page    map[string]*state.Person
	counted *placedIDs // those who pass where, counted, not kept
	// ask asks the other workspaces about each page read (env.askAbout)
	// when the people they hold were left unread; else nil.
	ask func(page map[string]*state.Person) error
}

// at is the person of the k-th ID of the census' sources (id), when it
// is a person to enrich met for the first time that the state does not
// hold: read whole with its page. Nil for anyone else, or an ID naming
// no person.
func (c *candidatePages) at(census *enrichCensus, k int, id string) (*state.Person, error) {
	if census.member(k) != k || !census.candidate(k) {
		return nil, nil
	}
	if c.next >= c.ids.len() || c.ids.ks[c.next] != int32(k) {
		return nil, fmt.Errorf("the census met %s out of the order of its people to enrich", id)
	}
	if c.next == c.end {
		if err := c.read(); err != nil {
			return nil, err
		}
	}
	c.next++
	return c.page[id], nil
}

// read reads the next page of ids whole; a person the walks of other
// blocks read already is that one (EnrichFacts.whole).
func (c *candidatePages) read() error {
	c.end = min(c.next+censusPage, c.ids.len())
	c.f.pages++
	var ask []string
	clear(c.page)
	for i := c.next; i < c.end; i++ {
		id := c.ids.at(i)
		if p := c.f.whole[id]; p != nil {
			c.page[id] = p
		} else {
			ask = append(ask, id)
		}
	}
	read, err := c.f.people(ask)
	if err != nil {
		return err
	}
	for id, p := range read {
		c.page[id] = p
	}
	if c.ask == nil {
		return nil
	}
	return c.ask(c.page)
}

// took counts p, the k-th ID of the census' sources (id), just counted
// into bp by collectCensus, by its index when it went to bp.todo (it
// passes where: the block only counts it), and releases it; else
// (failing where, excluded) it keeps p as read by the census.
func (c *candidatePages) took(bp *blockPeople, p *state.Person, todo, k int, id string) {
	if len(bp.todo) == todo+1 && bp.todo[todo].p == p {
		bp.todo = bp.todo[:todo]
		if n := len(bp.met); n > 0 && bp.met[n-1] == p {
			bp.met = bp.met[:n-1]
		}
		c.counted.add(k)
		return
	}
	if c.f.many {
		c.f.whole[id] = p
	}
	c.f.censusRead[id] = p // made by collectCensus (readByCensus)
}
