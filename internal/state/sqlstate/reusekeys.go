package sqlstate

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/state"
)

// SelectNetworked are the people whose network ID is one of the list $2
// (state.NetworkFinder), through the index people_network_id: the people
// of this workspace another workspace holds an enrichment of. The
// workspace is compared as an expression: SQLite otherwise walks the
// people's page keys by workspace, every row (0.74 s at 3,000,000
// people, against 0.1 s).
const SelectNetworked = `SELECT id FROM {s}.people WHERE workspace || '' = $1 AND network_id <> ''`

func (w wrapped) Networked(nids []string) ([]string, error) {
	if len(nids) == 0 {
		return nil, nil
	}
	list, err := w.p.r.D.List(nids)
	if err != nil {
		return nil, err
	}
	q := w.p.r.D.packIDs(SelectNetworked + " AND " + w.p.r.D.inList("network_id", "$2"))
	var packed string
	if err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(q), w.p.r.WS, list).Scan(&packed); err != nil {
		return nil, w.err(err)
	}
	found, err := splitTexts(packed)
	return found, w.err(err)
}

var _ state.EnrichedLeadPager = wrapped{}

// SelectEnrichedLeadsAfter are the ID, network ID and page name of the
// people holding an enrichment whose IDs sort after $2, in ID order, up
// to a page (state.EnrichedLeadPager): the enrichments' primary key
// walked from $2, each person found by theirs. Packed in three JSON
// arrays (packTexts), a page is one row: 2,200,000 people listed by ID,
// then read by a list of IDs, took 4.7 s of CPU; 2.5 s so.
const SelectEnrichedLeadsAfter = `SELECT e.person_id AS id, p.network_id AS nid, p.page_name AS page
	FROM {s}.enrichments e JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id
	WHERE e.workspace = $1 AND e.person_id%[1]s > $2 ORDER BY e.person_id%[1]s LIMIT %[2]d`

func (w wrapped) EnrichedLeadsAfter(after string, n int, fn func(*state.Person)) (int, error) {
	got, err := w.p.enrichedLeadsAfter(after, n, fn)
	return got, w.err(err)
}

// enrichedLeadsAfter is EnrichedLeadsAfter: one query, its three packed
// columns split (appendTexts) and given to fn as one person in turn.
func (p *peopleStore) enrichedLeadsAfter(after string, n int, fn func(*state.Person)) (int, error) {
	q := p.r.D.packTexts(fmt.Sprintf(SelectEnrichedLeadsAfter, p.r.D.byteOrder, n), "id", "nid", "page")
	var packed [3]string
	err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(q), p.r.WS, after).Scan(&packed[0], &packed[1], &packed[2])
	if err != nil {
		return 0, err
	}
	var cols [3][]string
	for i, text := range packed {
		if cols[i], err = splitTexts(text); err != nil {
			return 0, err
		}
	}
	ids, nids, pages := cols[0], cols[1], cols[2]
	if len(nids) != len(ids) || len(pages) != len(ids) {
		return 0, fmt.Errorf("enriched leads: %d IDs, %d network IDs, %d page names", len(ids), len(nids), len(pages))
	}
	var one state.Person
	for i, id := range ids {
		one.ID, one.Lead.NetworkID, one.Lead.PageName = id, nids[i], pages[i]
		fn(&one)
	}
	return len(ids), nil
}
