package export

// leadChunk is how many searches' lead lists are read in one question of
// the store (Base.LeadLists) as a sheet's sources are gone through: a
// question each, 10,000 searches were 10,000 round trips to PostgreSQL
// for the rows and as many for the Summary's counts.
const leadChunk = 500

// readLeadsAhead reads the lead lists of the searches among srcs[i:] (up
// to leadChunk sources) when i starts a chunk, for sourceIDs to give;
// the lists of the chunk before are dropped.
func (j *job) readLeadsAhead(srcs []string, i int) error {
	if i%leadChunk != 0 {
		return nil
	}
	var searches []string
	for _, src := range srcs[i:min(i+leadChunk, len(srcs))] {
		if j.st.Searches[src] != nil {
			searches = append(searches, src)
		}
	}
	leads, err := j.base.LeadLists(searches)
	j.leads = leads
	return err
}
