package state

import (
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
)

func importEv(at time.Time, addr string, people ...ImportedPerson) Event {
	return Event{At: at, Kind: EventImport, Address: addr, Import: &ImportEvent{File: "f.csv", Digest: "d", Rows: len(people), People: people}}
}

func imported(nid, page, email string) ImportedPerson {
	return ImportedPerson{Result: person.EnrichedProfile{NetworkID: nid, PageName: page, FullName: "Imported " + page, Company: "Imp AG", Email: email}}
}

func TestFoldImport(t *testing.T) {
	s := New()
	must := func(e Event) {
		t.Helper()
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	// Anna is known from a search, with the service's name and company.
	must(searchEv(day(1), "search.a", 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna A", Title: "CTO", Company: "Acme"}))
	// Bea was enriched (paid) yesterday; the file's e-mail of her is older.
	must(searchEv(day(1), "search.a", 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna A", Title: "CTO", Company: "Acme"},
		person.Lead{NetworkID: "n2", PageName: "bea", FullName: "Bea B"}))
	must(enrichEv(day(2), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", PageName: "bea", Email: "bea@paid.example"}))
	old := day(0)
	ev := importEv(day(3), "import.crm",
		ImportedPerson{Result: person.EnrichedProfile{NetworkID: "n1", PageName: "anna", FullName: "Anna Other", Company: "Other", Email: "anna@acme.example", ValidationStatus: "valid"}},
		ImportedPerson{Result: person.EnrichedProfile{PageName: "bea", Email: "bea@old.example"}, EnrichedAt: &old},
		ImportedPerson{Result: person.EnrichedProfile{PageName: "cid", FirstName: "Cid", LastName: "C", Email: "cid@c.example"}},
		ImportedPerson{Result: person.EnrichedProfile{PageName: "dan"}},
	)
	must(ev)
	a := s.People["n1"]
	if a.Lead.FullName != "Anna A" || a.Lead.Company != "Acme" {
		t.Errorf("the file replaced what the service said: %+v", a.Lead)
	}
	if a.Enrichment == nil || a.Enrichment.By != "import.crm" || a.Enrichment.Result.Email != "anna@acme.example" || !a.Enrichment.EnrichedAt.Equal(day(3)) {
		t.Errorf("Anna's enrichment %+v", a.Enrichment)
	}
	if b := s.People["n2"]; b.Enrichment.By != "enrich.e" || b.Enrichment.Result.Email != "bea@paid.example" {
		t.Errorf("Bea's newer enrichment was replaced: %+v", b.Enrichment)
	}
	c := s.Person("page:cid")
	if c == nil || c.Enrichment == nil || c.Lead.FullName != "Cid C" || !slices.Equal(c.FoundBy, []string{"import.crm"}) {
		t.Fatalf("Cid: %+v", c)
	}
	if d := s.Person("page:dan"); d == nil || d.Enrichment != nil {
		t.Errorf("Dan (no e-mail) is enriched: %+v", d)
	}
	rec := s.Imports["import.crm"]
	if rec == nil || rec.Rows != 4 || rec.Enriched != 2 || !slices.Equal(rec.PersonIDs, []string{"n1", "n2", "page:cid", "page:dan"}) {
		t.Fatalf("record %+v", rec)
	}
	if s.Usage.CreditsSpent != 1 {
		t.Errorf("an import spent credits: %d", s.Usage.CreditsSpent)
	}

	// Cid's network ID arrives with a search: the record follows the re-key.
	must(searchEv(day(4), "search.b", 0, person.Lead{NetworkID: "n3", PageName: "cid", FullName: "Cid C"}))
	if !slices.Equal(s.Imports["import.crm"].PersonIDs, []string{"n1", "n2", "n3", "page:dan"}) {
		t.Errorf("after the re-key: %v", s.Imports["import.crm"].PersonIDs)
	}
	// Dan is erased: out of the record, and not adopted again.
	must(Event{At: day(5), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{Reason: ForgetErasure, PersonIDs: []string{"page:dan"}}})
	if r := s.Imports["import.crm"]; slices.Contains(r.PersonIDs, "page:dan") || r.Suppressed != 1 {
		t.Errorf("after the erasure: %+v", r)
	}
	// The file again, without Bea: she leaves the import (her enrichment
	// stays); Dan is dropped as suppressed.
	must(importEv(day(6), "import.crm", ev.Import.People[0], ev.Import.People[2], ev.Import.People[3]))
	if slices.Contains(s.People["n2"].FoundBy, "import.crm") || s.People["n2"].Enrichment == nil {
		t.Errorf("Bea after the re-import: %+v", s.People["n2"])
	}
	if r := s.Imports["import.crm"]; r.Suppressed != 1 || s.Person("page:dan") != nil || !slices.Equal(r.PersonIDs, []string{"n1", "n3"}) {
		t.Errorf("re-import: %+v", r)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// The block removed: the record goes, the people and e-mails stay.
	must(Event{At: day(7), Kind: EventForget, Address: "import.crm"})
	if s.Imports["import.crm"] != nil || slices.Contains(s.People["n1"].FoundBy, "import.crm") || s.People["n1"].Enrichment == nil {
		t.Errorf("forget: %+v %+v", s.Imports, s.People["n1"])
	}
	// An import event without identity is refused before anything changes.
	if err := s.Fold(importEv(day(8), "import.crm", ImportedPerson{Result: person.EnrichedProfile{Email: "x@y.example"}})); err == nil {
		t.Error("an import of nobody was folded")
	}
}

// TestImportAndCopyKeepTheEmailReplaced checks that an e-mail replaced by
// a newer one an import or another workspace gave is history, as when an
// enrichment is made again.
func TestImportAndCopyKeepTheEmailReplaced(t *testing.T) {
	s := New()
	must := func(e Event) {
		t.Helper()
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	must(searchEv(day(1), "search.a", 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna A", Company: "Acme"}))
	must(enrichEv(day(2), "enrich.e", "n1", person.EnrichedProfile{NetworkID: "n1", PageName: "anna", Email: "anna@acme.example"}))
	at := day(3)
	must(importEv(day(4), "import.crm", ImportedPerson{Result: person.EnrichedProfile{NetworkID: "n1", Email: "anna@newco.example"}, EnrichedAt: &at}))
	must(Event{At: day(5), Kind: EventReuse, Address: "enrich.e", Reuse: &ReuseEvent{PersonID: "n1", Workspace: "dach",
		Enrichment: Enrichment{EnrichedAt: day(5), By: "enrich.e", Result: person.EnrichedProfile{NetworkID: "n1", Email: "anna@third.example"}}}})
	h := s.People["n1"].History
	if len(h) != 2 || h[0].Before != "anna@acme.example" || h[0].After != "anna@newco.example" || h[0].Call != "import" || h[0].By != "import.crm" ||
		h[1].Before != "anna@newco.example" || h[1].After != "anna@third.example" || h[1].Call != "reuse" {
		t.Errorf("history %+v", h)
	}
}
