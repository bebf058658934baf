package state

import (
	"testing"
	"time"
)

// TestTrackSketchesPack packs sketches added in no order, one twice:
// each is found by ID, once, with what was added first, and a Pageless
// pack keeps whether each has a page name, not the name.
func TestTrackSketchesPack(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 5, time.UTC)
	in := []TrackSketch{
		{ID: "3.c", PageName: "carla", Status: StatusLeft, By: "enrich.a", Checked: at},
		{ID: "1.a", PageName: "anna", By: "import.crm"},
		{ID: "2.b", By: "enrich.a", Checked: at.Add(time.Hour)},
		{ID: "1.a", PageName: "other", By: "enrich.a"},
	}
	for _, pageless := range []bool{false, true} {
		k := TrackSketchBuilder{Pageless: pageless}
		for _, s := range in {
			k.Add(s)
		}
		sk := k.Done()
		if sk.Len() != 3 || sk.Pageless() != pageless {
			t.Fatalf("pageless %v: %d sketches, Pageless %v; want 3 of 4 added", pageless, sk.Len(), sk.Pageless())
		}
		for n, want := range []TrackSketch{in[1], in[2], in[0]} {
			i := sk.Find(want.ID)
			if i != n {
				t.Fatalf("pageless %v: Find(%s) = %d, want %d", pageless, want.ID, i, n)
			}
			if pageless {
				if sk.HasPage(i) != (want.PageName != "") || sk.PageName(i) != "" {
					t.Fatalf("pageless: %s has page %v, name %q", want.ID, sk.HasPage(i), sk.PageName(i))
				}
				want.PageName = sk.PageName(i)
			}
			got := sk.Sketch(i)
			if got.ID != want.ID || got.PageName != want.PageName || got.Status != want.Status || got.By != want.By || !got.Checked.Equal(want.Checked) {
				t.Fatalf("pageless %v: sketch %d = %+v, want %+v", pageless, i, got, want)
			}
		}
		if sk.Find("0") != -1 || sk.Find("2.bb") != -1 || sk.Find("9") != -1 {
			t.Fatalf("pageless %v: Find of an ID not packed found one", pageless)
		}
	}
}
