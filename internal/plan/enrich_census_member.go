package plan

import "github.com/leadsync/leadsync/internal/state"

// member is a person of a block's people to enrich (blockPeople.todo)
// and of the claims (claimRounds): p, held as a Person.
type member struct {
	p *state.Person
	k int32
}

// wholeMember is the member of a person held as a Person.
func wholeMember(p *state.Person) member { return member{p: p, k: -1} }

// memberID is the ID of m's person.
func (v *env) memberID(m member) string { return m.p.ID }

// memberIDs are the IDs of the persons of ms.
func (v *env) memberIDs(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = v.memberID(m)
	}
	return out
}

// memberEnrichment are the block m's enrichment is by and the block that
// copied it (Enrichment.CopiedBy); ok is false when m holds none.
func (v *env) memberEnrichment(m member) (by, copied string, ok bool) {
	if m.p.Enrichment == nil {
		return "", "", false
	}
	return m.p.Enrichment.By, m.p.Enrichment.CopiedBy, true
}

// held is m as a block's lists hold it.
func (m member) held() member { return m }
