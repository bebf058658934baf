package export

import (
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// QuotaCallsSince counts the completed calls state records after t that
// use the monthly quota: first-generation searches (each sub-search of a
// split one), profile reads and track reads, and every enrichment (first
// generation only). A person keeps only their last track read, so two
// reads of one person since t count once.
// Failed calls may have used requests too: the count is a floor. show
// and the Summary sheet say, beside the requests left when they were
// read, how many calls were made since.
func QuotaCallsSince(s *state.State, t time.Time) int {
	n := RecordQuotaCallsSince(s, t)
	for _, p := range s.People {
		n += p.QuotaCallsSince(t)
	}
	return n
}

// RecordQuotaCallsSince is QuotaCallsSince of the state's records alone
// (its searches and profile reads): a Base adds its people's
// (state.PeopleFacts.QuotaCalls).
func RecordQuotaCallsSince(s *state.State, t time.Time) int {
	n := 0
	for _, sr := range s.Searches {
		if sr.Generation != api.Gen1 || !sr.RanAt.After(t) {
			continue
		}
		if sr.Split == nil {
			n++
			continue
		}
		for _, node := range sr.Split.Nodes {
			if node.RanAt.After(t) {
				n++
			}
		}
	}
	reads := map[string]bool{} // a read shared by two profile blocks is one call
	for _, pr := range s.Profiles {
		if pr.Generation == api.Gen1 && pr.ReadAt.After(t) {
			reads[pr.PersonID+" "+pr.ReadAt.String()] = true
		}
	}
	return n + len(reads)
}
