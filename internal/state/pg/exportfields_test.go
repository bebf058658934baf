package pg

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// exportFieldEvents record what the export columns beyond the lead read: a
// raw search item with every node field of spec 2.3 (highlight markers
// included), a profile read with a work timeline (a current position, whose
// endDate is null, and a past one) and an avatar, and an enrichment's
// avatar.
func exportFieldEvents(t *testing.T) []state.Event {
	var raw []api.RawLead
	mustNoErr(t, json.Unmarshal([]byte(`[{"cursor": "Y3Vyc29y", "node": {
		"networkId": {"id": "n1", "displayName": "Anna **Lima**", "displayFlag": "BASIC",
			"location": {"displayLocation": "**Berlin**, Germany"}, "profileOccupation": {"occupationOrg": "ACME"},
			"occupations": [{"category": "WORK_EXPERIENCE", "summary": "**CTO**", "links": null}, {"category": "EDUCATION", "summary": "TU Berlin", "links": null}],
			"pageName": "anna", "profileImage": [{"url": "https://img.example/a_64x64.jpg"}, {"url": "https://img.example/a_256x256.jpg"}]},
		"highlight": {"currentTitle": ["**CTO**"], "haves": null, "city": ["**Berlin**"]},
		"trackingToken": "tt", "position": 0, "contains": null, "missing": null,
		"profileSkills": {"topSkills": ["Go", {"name": "SQL"}]},
		"sharedContacts": {"total": 0}, "contactsCount": {"count": 1234},
		"networkRelationship": {"permissions": ["MESSAGE"]}, "contactDistance": {"distance": 2}}}]`), &raw), "raw")
	past := "Jan 2019"
	return []state.Event{
		{At: at(1), Kind: state.EventSearch, Address: "search.raw", Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"CTO","raw":true}`), Leads: []api.Lead{raw[0].Lead()}, Raw: raw}},
		{At: at(2), Kind: state.EventProfile, Address: "profile.anna", Profile: &state.ProfileEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"anna"}`), PageName: "anna", Profile: api.Profile{
				FullName: "Anna Lima", ProfileImg: "https://img.example/a_256x256.jpg", NetworkURL: "https://network.example/profile/anna",
				CurrentPosition: []api.Position{{JobTitle: "CTO", Company: "ACME", Date: "2 years, since Feb 2024"}},
				WorkPositionTimeline: []api.TimelinePosition{
					{JobTitle: "CTO", Company: "ACME", Date: "2 years, since Feb 2024", StartDate: "Feb 2024", EndDate: nil, DaysInPosition: 800},
					{JobTitle: "Engineer", Company: "Beta", Date: "3 years", StartDate: "Jan 2016", EndDate: &past, DaysInPosition: 1096},
				}}}},
		{At: at(3), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n1", Credits: 1,
			Result: api.EnrichedProfile{NetworkID: "n1", PageName: "anna", FullName: "Anna Lima", ProfileImgURL: "https://img.example/enriched.jpg",
				Email: "anna@acme.example", ValidationStatus: api.StatusValid, CreditBalance: 9}}},
	}
}

// TestExportFieldsRoundTrip: every backend keeps what the export columns
// read, after a commit and after a kill (replayed from the journal): the
// raw item with its node fields, the profile's timeline (a null endDate
// stays null, not "") and avatar, the enrichment's avatar. The profile is
// one JSON column in PostgreSQL and the raw item a text column, so no
// schema change is needed for them.
func TestExportFieldsRoundTrip(t *testing.T) {
	for _, killed := range []bool{false, true} {
		for _, k := range kinds(t) {
			name := k.name
			if killed {
				name += " killed"
			}
			t.Run(name, func(t *testing.T) {
				evs := exportFieldEvents(t)
				b := k.open(alice)
				if killed {
					l, err := b.Lock("apply")
					mustNoErr(t, err, "lock")
					s, err := b.Load()
					mustNoErr(t, err, "load")
					rec, err := b.OpenJournal(s)
					mustNoErr(t, err, "open journal")
					for i := range evs {
						mustNoErr(t, rec.Append(&evs[i]), "append %d", i)
						mustNoErr(t, s.Fold(evs[i]), "apply %d", i)
					}
					// Killed here: no Close, no Commit, no Unlock.
					if k.pg {
						b.(*Backend).Close()
						l.(*Lock).conn.Close(context.Background())
					}
				} else {
					apply(t, b, evs)
				}
				got, err := k.open(bob).Load()
				mustNoErr(t, err, "reload")
				p := got.People["n1"]
				if p == nil || p.Profile == nil {
					t.Fatalf("person n1 or their profile lost: %+v", p)
				}
				want := evs[1].Profile.Profile
				if d := cmp.Diff(&want, p.Profile); d != "" {
					t.Errorf("profile (-want +got):\n%s", d)
				}
				if tl := p.Profile.WorkPositionTimeline; len(tl) != 2 || tl[0].EndDate != nil || tl[1].EndDate == nil || *tl[1].EndDate != "Jan 2019" {
					t.Errorf("timeline end dates: %+v", tl)
				}
				if p.Enrichment == nil || p.Enrichment.Result.ProfileImgURL != "https://img.example/enriched.jpg" {
					t.Errorf("enrichment avatar lost: %+v", p.Enrichment)
				}
				var gotRaw, wantRaw bytes.Buffer
				mustNoErr(t, json.Compact(&wantRaw, evs[0].Search.Raw[0].Raw), "compact")
				var a, w any
				mustNoErr(t, json.Unmarshal(p.Raw, &a), "raw item is not JSON: %s", p.Raw)
				mustNoErr(t, json.Unmarshal(wantRaw.Bytes(), &w), "want")
				if d := cmp.Diff(w, a); d != "" {
					mustNoErr(t, json.Compact(&gotRaw, p.Raw), "compact")
					t.Errorf("raw item changed (-want +got):\n%s\n%s", d, gotRaw.String())
				}
			})
		}
	}
}
