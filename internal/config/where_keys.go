package config

// WhereLeadKeys are the keys of the lead fields e's where reads (as
// person.LeadFields names them), and true, when it reads lead only by
// such names: a lead holding those fields alone passes or fails it as
// the whole lead does (Match gives it no other). False without a where,
// or for one that reads lead otherwise (lead whole, lead["x"]).
func (e *Enrich) WhereLeadKeys() ([]string, bool) {
	if e == nil || e.Where == nil {
		return nil, false
	}
	return whereLeadKeys(e.Where)
}
