package state

import (
	"fmt"
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

// TestTrackSketchesAddedInOrderOfIDs: sketches added in the order of
// their IDs, over several chunks, keep no order of indexes, and are found
// by ID. An ID added twice in a row, or one out of order, makes the order
// (each found once, the first added kept).
func TestTrackSketchesAddedInOrderOfIDs(t *testing.T) {
	n := chunkLen + 10
	for _, odd := range []string{"", "twice", "before"} {
		k := TrackSketchBuilder{}
		for i := range n {
			s := TrackSketch{ID: fmt.Sprintf("%08d", 2*i), PageName: fmt.Sprint("p", i), By: "enrich.a"}
			k.Add(s)
			if i == n-3 && odd == "twice" {
				s.PageName = "second"
				k.Add(s)
			}
			if i == n-3 && odd == "before" {
				k.Add(TrackSketch{ID: fmt.Sprintf("%08d", 1), PageName: "p-odd"})
			}
		}
		sk := k.Done()
		want := n
		if odd == "before" {
			want++
		}
		if sk.Len() != want || (sk.order == nil) != (odd == "") {
			t.Fatalf("%s: %d sketches, want %d; an order kept: %v", odd, sk.Len(), want, sk.order != nil)
		}
		for i := range n {
			id := fmt.Sprintf("%08d", 2*i)
			j := sk.Find(id)
			if j < 0 || sk.ID(j) != id || sk.PageName(j) != fmt.Sprint("p", i) {
				t.Fatalf("%s: %s found at %d, page %q", odd, id, j, sk.PageName(max(j, 0)))
			}
		}
		if odd == "before" && sk.PageName(sk.Find("00000001")) != "p-odd" {
			t.Fatalf("the ID added out of order not found")
		}
	}
}

// TestTrackSketchesAcrossChunks packs sketches on both sides of a chunk's
// end, IDs of mixed lengths, with and without page names, in ID order
// and shuffled: every field of each comes back as added, and an ID not
// added is found nowhere.
func TestTrackSketchesAcrossChunks(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	statuses := []string{"", StatusLeft, StatusPrivate}
	bys := []string{"enrich.a", "import.b", ""}
	for _, n := range []int{chunkLen - 1, chunkLen, chunkLen + 1} {
		in := make([]TrackSketch, n)
		for i := range in {
			// IDs sort as added: a length prefix keeps mixed lengths in order.
			w := 1 + i%13
			id := fmt.Sprintf("%02d.%0*d", w, w, i%1000)
			if w > 3 {
				id = fmt.Sprintf("%02d.%0*d", w, w, i)
			}
			in[i] = TrackSketch{ID: id, Status: statuses[i%3], By: bys[i%3]}
			if i%2 == 0 {
				in[i].PageName = fmt.Sprint("p", i)
			}
			if i%5 != 0 {
				in[i].Checked = at.Add(time.Duration(i) * time.Second)
			}
		}
		for _, shuffled := range []bool{false, true} {
			for _, pageless := range []bool{false, true} {
				k := TrackSketchBuilder{Pageless: pageless}
				order := make([]int, n)
				for i := range order {
					order[i] = i
				}
				if shuffled {
					for i := range order { // a fixed permutation
						j := (i * 7919) % n
						order[i], order[j] = order[j], order[i]
					}
				}
				want := map[string]TrackSketch{} // the first added of each ID
				for _, i := range order {
					k.Add(in[i])
					if _, ok := want[in[i].ID]; !ok {
						want[in[i].ID] = in[i]
					}
				}
				sk := k.Done()
				if sk.Len() != len(want) {
					t.Fatalf("n %d shuffled %v pageless %v: %d sketches, want %d", n, shuffled, pageless, sk.Len(), len(want))
				}
				for id, w := range want {
					i := sk.Find(id)
					if i < 0 {
						t.Fatalf("n %d shuffled %v pageless %v: %s not found", n, shuffled, pageless, id)
					}
					got := sk.Sketch(i)
					if pageless {
						if sk.HasPage(i) != (w.PageName != "") {
							t.Fatalf("n %d shuffled %v: %s HasPage %v", n, shuffled, id, sk.HasPage(i))
						}
						w.PageName = ""
					}
					if got.ID != w.ID || got.PageName != w.PageName || got.Status != w.Status || got.By != w.By || !got.Checked.Equal(w.Checked) {
						t.Fatalf("n %d shuffled %v pageless %v: sketch %s = %+v, want %+v", n, shuffled, pageless, id, got, w)
					}
				}
				if sk.Find("99.x") != -1 || sk.Find("00") != -1 {
					t.Fatalf("n %d shuffled %v pageless %v: an ID not added was found", n, shuffled, pageless)
				}
			}
		}
	}
}
