package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestUnrecordedAnswerPrinted: an answer paid for that could be neither
// recorded nor kept is printed on standard error at once, by both forms
// of apply: who, and what came back (an enrichment's name, page name,
// e-mail, status and domain; the people of a search). The JSON form also
// emits it as a line of its stream.
func TestUnrecordedAnswerPrinted(t *testing.T) {
	err := errors.New("cannot record a completed call: no space left on device; keeping it in a rescue file in /home/ann/.cache/leadsync/rescue failed too: no space left on device")
	enrich := engine.Call{Seq: 2, Kind: kind.Enrich, Address: "enrich.all", Person: "n2", Page: "Jane_Doe", Label: "Jane Doe"}
	enrichEv := &state.Event{Kind: state.EventEnrich, Address: "enrich.all", Enrich: &state.EnrichEvent{PersonID: "n2", Credits: 1,
		Result: person.EnrichedProfile{NetworkID: "n2", PageName: "Jane_Doe", FullName: "Jane Doe", Email: "jane@acme.example",
			ValidationStatus: person.StatusValid, CompanyDomain: "acme.example"}}}
	search := engine.Call{Seq: 3, Kind: kind.Search, Address: `search.eng["Köln"]`}
	searchEv := &state.Event{Kind: state.EventSearch, Address: search.Address, Search: &state.SearchEvent{
		Leads: []person.Lead{{FullName: "Max Muster", PageName: "Max_Muster"}, {FullName: "Eva Bau", PageName: "Eva_Bau"}}}}
	now := func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }

	var text bytes.Buffer
	tp := &textProgress{w: &text, now: now}
	tp.Unrecorded(enrich, enrichEv, err)
	tp.Unrecorded(search, searchEv, err)
	golden.Check(t, filepath.Join("testdata", "answer_unrecorded.txt"), text.Bytes())

	var out, errOut bytes.Buffer
	jp := &jsonProgress{w: &out, now: now, errOut: &errOut}
	jp.Unrecorded(enrich, enrichEv, err)
	if errOut.String() != strings.SplitAfter(text.String(), "acme.example\n")[0] {
		t.Errorf("the JSON form prints on standard error:\n%s\nwant what the text form prints:\n%s", errOut.String(), text.String())
	}
	var line struct {
		Type   string       `json:"message_type"`
		Answer *state.Event `json:"answer"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Type != "answer_not_recorded" || line.Answer == nil ||
		line.Answer.Enrich.Result.Email != "jane@acme.example" {
		t.Errorf("the JSON line does not carry the answer (%v):\n%s", err, out.String())
	}
}
