package sandbox

import (
	"encoding/json"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

// The sandbox sends every person field of person.PersonFields, in each answer
// that carries it, for some member: demos and end-to-end tests then see
// every field. A field added to the table fails here until the sandbox
// makes up values for it (population.go, ops.go).
func TestSandboxSendsEveryPersonField(t *testing.T) {
	h := newHarness(t, nil)
	sent := map[person.Source]map[string]bool{}
	note := func(from person.Source, answer any) {
		b, err := json.Marshal(answer)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if sent[from] == nil {
			sent[from] = map[string]bool{}
		}
		for k, v := range m {
			switch v := v.(type) {
			case string:
				sent[from][k] = sent[from][k] || v != ""
			case bool:
				sent[from][k] = sent[from][k] || v
			case float64:
				sent[from][k] = sent[from][k] || v != 0
			case []any:
				sent[from][k] = sent[from][k] || len(v) > 0
			}
		}
	}
	for _, m := range h.s.Population() {
		note(person.FromLead, m.Lead())
		note(person.FromEnrichment, m.enriched(requestID(1, 1), 41))
		note(person.FromProfile, m.profile(h.clock.Now(), false))
	}
	for _, f := range person.PersonFields {
		for _, from := range []person.Source{person.FromLead, person.FromEnrichment, person.FromProfile} {
			if f.From&from != 0 && !sent[from][f.Key] {
				t.Errorf("no member's %s has %s: teach the sandbox to send it", from, f.Key)
			}
		}
	}
}
