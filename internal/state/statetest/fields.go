package statetest

import (
	"github.com/leadsync/leadsync/internal/person"
)

// FieldValue is the text FullLead, FullEnrichment and FullProfile give the
// field key of tag: its own for each field and each tag, with characters a
// codec, a database and a spreadsheet must keep ("title of hal: Müller \"&\" <Co>").
func FieldValue(key, tag string) string {
	return key + " of " + tag + `: Müller "&" <Co>`
}

// FullLead is a lead with every field of person.PersonFields set to its
// FieldValue, but its keys: the networkId nid and the page name page. A
// field added to the table is filled without a change here.
func FullLead(tag, nid, page string) person.Lead {
	var l person.Lead
	for _, f := range person.LeadFields {
		*f.Lead(&l) = FieldValue(f.Key, tag)
	}
	l.NetworkID, l.PageName = nid, page
	return l
}

// FullEnrichment is an enrichment's result with every field of
// person.PersonFields set (text fields to their FieldValue, whole numbers to
// n), for the person nid known by the page name page.
func FullEnrichment(tag, nid, page string, n int) person.EnrichedProfile {
	var e person.EnrichedProfile
	for _, f := range person.EnrichedFields {
		switch {
		case f.Enriched != nil:
			*f.Enriched(&e) = FieldValue(f.Key, tag)
		case f.EnrichedInt != nil:
			*f.EnrichedInt(&e) = n
		}
	}
	e.NetworkID, e.PageName = nid, page
	return e
}

// FullProfile is a profile read with every field set: the text fields of
// person.PersonFields to their FieldValue, the lists and yes/no fields by
// hand (TestFullAnswersSetEveryField fails when one is missing).
func FullProfile(tag string) person.Profile {
	var p person.Profile
	for _, f := range person.PersonFields {
		if f.Profile != nil {
			*f.Profile(&p) = FieldValue(f.Key, tag)
		}
	}
	end := "Jan 2019"
	p.CurrentPosition = []person.Position{{JobTitle: FieldValue("currentPosition", tag), Company: "Gray", Date: "since Feb 2024"}}
	p.WorkPositionTimeline = []person.TimelinePosition{
		{JobTitle: FieldValue("workPositionTimeline", tag), Company: "Gray", Date: "2 years", StartDate: "Feb 2024", DaysInPosition: 800},
		{JobTitle: "Dev", Company: "Beta", StartDate: "Jan 2016", EndDate: &end, DaysInPosition: 1096}}
	p.Private, p.PremiumProfile = true, true
	return p
}
