package sqlstate

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// TestExtraEncodeField: the fields no column models are encoded one by one
// into what encoding the whole value and dropping the known keys gives,
// empty ones left out as omitempty says.
func TestExtraEncodeField(t *testing.T) {
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for name, p := range map[string]*state.Person{
		"none":    {ID: "p1", FoundBy: []string{"search.a"}},
		"empty":   {ID: "p2", Tracked: map[string]time.Time{}},
		"tracked": {ID: "p3", Tracked: map[string]time.Time{"track.a": at}, CheckedGeneration: api.Gen1},
	} {
		got, err := PersonExtra.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := PersonExtra.encodeWhole(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
}
