package export

import (
	"time"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// The fixture: two instances of search.cto, one profile, people whose names
// test every kind of awkward text.
var (
	t0      = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	t1      = time.Date(2026, 11, 20, 18, 45, 12, 0, time.UTC)
	fixedAt = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
)

const (
	berlin  = `search.cto["Berlin"]`
	hamburg = `search.cto["Hamburg"]`
	founder = "profile.founder"
)

func fixedNow() time.Time { return fixedAt }

func testPerson(id string, l person.Lead, foundBy ...string) *state.Person {
	return &state.Person{ID: id, Lead: l, FirstSeen: t0, LastSeen: t1, FoundBy: foundBy}
}

// fixture returns a configuration with one export at path and a state.
//
// search.cto["Berlin"] found jürgen, oconnor, formula, rtl (300 results: capped).
// search.cto["Hamburg"] found formula (again), emoji.
// profile.founder read max.
func fixture(path string, sheets ...*config.Sheet) (*config.Config, *state.State) {
	cfg := &config.Config{
		Dir: "",
		Settings: config.Settings{
			ProfileURLTemplate: "https://network.example/profile/{pageName}",
		},
		Searches: []*config.Search{
			{Address: berlin, Addr: typed(berlin), Block: "search.cto", Name: "cto", Request: api.SearchRequest{Params: map[string]any{
				"keywords": "CTO", "city": "Berlin", "industryFilter": []string{"Internet and IT"},
			}}},
			{Address: hamburg, Addr: typed(hamburg), Block: "search.cto", Name: "cto", Request: api.SearchRequest{Params: map[string]any{
				"keywords": "CTO", "city": "Hamburg",
			}}},
		},
		Profiles: []*config.Profile{
			{Address: founder, Addr: typed(founder), Block: founder, Name: "founder", PageName: "Max_Mustermann"},
		},
		Exports: []*config.Export{{
			Address: "export.marketing", Name: "marketing", Path: path, Format: formatOf(path), Sheets: sheets,
		}},
	}
	jurgen := testPerson("n-1", person.Lead{
		FirstName: "Jürgen", LastName: "Müller-Lüdenscheidt", FullName: "Jürgen Müller-Lüdenscheidt",
		Title: "CTO", Location: "Köln", Company: "Bäckerei Größe GmbH", NetworkID: "n-1", PageName: "Jürgen_Müller",
	}, berlin)
	jurgen.Enrichment = &state.Enrichment{EnrichedAt: t1, By: "enrich.cto_contacts", Result: person.EnrichedProfile{
		Email: "juergen@baeckerei.example", ValidationStatus: person.StatusValid, CompanyDomain: "baeckerei.example",
	}}
	oconnor := testPerson("n-2", person.Lead{
		FirstName: "Siobhán", LastName: "O'Connor", FullName: "Siobhán O'Connor", Title: "Head of 'Engineering'",
		Company: "O'Reilly & Sons", NetworkID: "n-2", PageName: "Siobhan_OConnor",
	}, berlin)
	oconnor.Enrichment = &state.Enrichment{EnrichedAt: t1, Result: person.EnrichedProfile{ValidationStatus: person.StatusCatchAll, Email: "s@oreilly.example"}}
	formula := testPerson("n-3", person.Lead{
		FirstName: "=HYPERLINK(\"http://evil.example\",\"click\")", LastName: "+1", FullName: "@SUM(A1:A9)",
		Title: "-2+3", Company: "=1+1", NetworkID: "n-3", PageName: "x\"y",
	}, berlin, hamburg)
	rtl := testPerson("n-4", person.Lead{
		FirstName: "مريم", LastName: "العربي", FullName: "مريم العربي", Title: "מנהלת טכנולוגיה", Company: "شركة", NetworkID: "n-4", PageName: "maryam",
	}, berlin)
	emoji := testPerson("n-5", person.Lead{
		FirstName: "Zoë 🚀", LastName: "Smith 👩‍💻", FullName: "Zoë 🚀 Smith 👩‍💻", Title: "CTO 🦄", NetworkID: "n-5", PageName: "zoe",
	}, hamburg)
	maxm := testPerson("n-6", person.Lead{FullName: "Max Mustermann", PageName: "Max_Mustermann", NetworkID: "n-6"}, founder)
	maxm.Profile = &person.Profile{
		FullName: "Max Mustermann", NetworkURL: "https://network.example/profile/Max_Mustermann",
		Description: "Founder.\nBuilds things.", PremiumProfile: true,
		CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "Muster AG", Date: "2019"}},
	}
	readAt := t1
	maxm.ProfileReadAt = &readAt

	rem, bal := 9114, 420
	st := &state.State{
		Searches: map[string]*state.Search{
			berlin:  {Address: berlin, RanAt: t1, ResultCount: 300, Capped: true, LeadIDs: []string{"n-1", "n-2", "n-3", "n-4"}},
			hamburg: {Address: hamburg, RanAt: t0, ResultCount: 2, LeadIDs: []string{"n-3", "n-5"}},
		},
		Profiles: map[string]*state.ProfileRead{
			founder: {Address: founder, ReadAt: t1, PersonID: "n-6"},
		},
		People: map[string]*state.Person{},
		Usage: state.Usage{
			RemainingRequests: &rem, CheckedAt: &t1, CreditBalance: &bal, CreditBalanceAt: &t1, CreditsSpent: 2,
		},
	}
	for _, p := range []*state.Person{jurgen, oconnor, formula, rtl, emoji, maxm} {
		st.People[p.ID] = p
	}
	return cfg, st
}

// formatOf is the format a path chooses, as config sets it.
func formatOf(path string) string {
	f, _ := exportformat.ForPath(path)
	return f.Name
}

// writeExports writes every export of cfg in declaration order with Write,
// as run.Export does, stopping at the first that fails.
func writeExports(cfg *config.Config, st *state.State, opts Options) ([]Written, error) {
	var all []Written
	for _, exp := range cfg.Exports {
		w, err := Write(cfg, exp, state.NewBase(st), opts)
		all = append(all, w...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// marketingSheets are the sheets of the design's example export.
func marketingSheets() []*config.Sheet {
	return []*config.Sheet{
		{Name: "CTOs", From: []string{"search.cto"}, Dedupe: true, Columns: []string{
			"fullName", "title", "company", "location", "email", "validationStatus", "companyDomain", "profileUrl", "firstSeen",
		}},
		{Name: "All leads", From: []string{"search.cto", founder}, Dedupe: true, Columns: config.DefaultColumns},
	}
}

// typed is the typed address of a block a test declares by hand (the
// loader gives each block its own).
func typed(addr string) address.Address {
	a, err := address.Parse(addr)
	if err != nil {
		panic(err)
	}
	return a
}
