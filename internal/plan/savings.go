package plan

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// Savings are the credits this plan does not spend, and why: people the
// exclude blocks remove, people an import already gives an e-mail, people
// enriched in another workspace of the backend.
type Savings struct {
	// CreditsMax adds up the three: credits not spent, at most (an
	// excluded person might have been beyond a limit anyway).
	CreditsMax int            `json:"credits_max"`
	Excluded   ExcludedSaving `json:"excluded"`
	Imported   ImportedSaving `json:"imported"`
	Reused     ReusedSaving   `json:"reused"`
}

// ExcludedSaving is what the exclude blocks remove from the people the
// enrich blocks would enrich, as far as the state knows them (people a
// search of this run brings are matched as they arrive).
type ExcludedSaving struct {
	// Candidates are the people of the planned enrich blocks' sources,
	// enriched or not, the excluded ones included, each once: what the
	// state holds, so that the same state gives the same count before
	// and after an apply.
	Candidates int `json:"candidates"`
	// People are those of them an exclude block removes from enrichment
	// (not enriched, or holding only an imported e-mail), each once;
	// CreditsMax the credits of those who would need a paid enrichment.
	People     int            `json:"people"`
	CreditsMax int            `json:"credits_max"`
	Blocks     []ExcludeBlock `json:"blocks"`
}

// ExcludeBlock is one exclude block in the plan.
type ExcludeBlock struct {
	Address string `json:"address"`
	By      string `json:"by"`
	File    string `json:"file"`
	// Sheets are the sheets of a workbook it read ([] for a CSV file).
	Sheets []string `json:"sheets"`
	Column string   `json:"column"`
	// Rows are the file's data rows, Keys the distinct values read.
	Rows int `json:"rows"`
	Keys int `json:"keys"`
	// People are the candidates it removes (a person named by several
	// blocks counts for the first).
	People int `json:"people"`
	// Timing is "before_spending" (a company, profile URL, page name or
	// network ID: in every search result) or "once_known" (an e-mail or a
	// domain: known from an import or an earlier enrichment, or for a
	// domain a colleague's; a person whose own enrichment is the first to
	// tell is enriched, then leaves the exports).
	Timing string `json:"timing"`
}

// Timings of ExcludeBlock.
const (
	TimingBeforeSpending = "before_spending"
	TimingOnceKnown      = "once_known"
)

// normalize makes the lists of s non-nil.
func (s *Savings) normalize() {
	if s.Excluded.Blocks == nil {
		s.Excluded.Blocks = []ExcludeBlock{}
	}
	for i := range s.Excluded.Blocks {
		if s.Excluded.Blocks[i].Sheets == nil {
			s.Excluded.Blocks[i].Sheets = []string{}
		}
	}
	if s.Reused.Workspaces == nil {
		s.Reused.Workspaces = []WorkspaceReuse{}
	}
}

// excludedSavings counts, over the planned enrich blocks' people, those
// the exclude blocks remove, and the credits that saves at most: no more
// than the places each block had left (places, taken from).
func (b *builder) excludedSavings(people []blockPeople, places []int, cpe int) {
	ex := &b.p.Savings.Excluded
	byBlock := map[*config.Exclude]int{}
	saved := 0
	if len(people) == 1 {
		// One block: its people are distinct already (a large state's
		// hundreds of thousands need no set).
		bp := people[0]
		ex.Candidates = bp.members
		ex.People = len(bp.excluded)
		paid := 0
		for _, e := range bp.excluded {
			byBlock[e.by]++
			if !e.free {
				paid++
			}
		}
		saved = takePlaces(places, 0, paid)
	}
	seen := map[*state.Person]bool{}
	for i, bp := range people {
		if len(people) == 1 {
			break
		}
		k := 0
		for _, e := range bp.excluded {
			if !seen[e.p] {
				seen[e.p] = true
				ex.People++
				byBlock[e.by]++
				if !e.free {
					k++
				}
			}
		}
		saved += takePlaces(places, i, k)
	}
	if len(people) > 1 {
		ex.Candidates = b.v.metCount(people)
	}
	ex.CreditsMax = saved * cpe
	for _, x := range b.cfg.Excludes {
		timing := TimingBeforeSpending
		if !x.BeforeSpending() {
			timing = TimingOnceKnown
		}
		ex.Blocks = append(ex.Blocks, ExcludeBlock{Address: x.Address, By: x.By.String(), File: x.File, Sheets: x.Sheets, Column: x.Column,
			Rows: x.Rows, Keys: x.Keys.Len(), People: byBlock[x], Timing: timing})
	}
	b.p.Savings.CreditsMax += ex.CreditsMax
}

// spendablePlaces returns, per block, the places under its limit that the
// people it saves on could have taken, once its copies and the people it
// pays for (paid) took theirs: -1 for a block without a limit.
func (v *env) spendablePlaces(blocks []*config.Enrich, paid [][]member) []int {
	places := make([]int, len(blocks))
	for i, e := range blocks {
		if e.Limit <= 0 {
			places[i] = -1
			continue
		}
		taken := 0
		for _, m := range paid[i] {
			if v.takesPlace(e, m) {
				taken++
			}
		}
		places[i] = max(e.Limit-v.used(e)-taken, 0) // used counts the planned copies
	}
	return places
}

// takePlaces takes up to n of block i's places, and returns how many it
// took (n for a block without a limit).
func takePlaces(places []int, i, n int) int {
	if places[i] < 0 {
		return n
	}
	n = min(n, places[i])
	places[i] -= n
	return n
}
