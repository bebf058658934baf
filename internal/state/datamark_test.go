package state

import "testing"

func TestDataMark(t *testing.T) {
	s := New()
	if m := s.DataMark(); m != (DataMark{}) {
		t.Errorf("a state never written: %+v; want no lineage, serial 0 (its lineage is made up by each load)", m)
	}
	s.Serial = 4
	m := s.DataMark()
	if m.Lineage != s.Lineage || m.Serial != 4 || m.Journal != nil {
		t.Errorf("mark %+v", m)
	}
	same := DataMark{Lineage: s.Lineage, Serial: 4}
	if !m.Equal(same) {
		t.Error("equal marks differ")
	}
	for name, o := range map[string]DataMark{
		"serial":        {Lineage: s.Lineage, Serial: 5},
		"lineage":       {Lineage: "other", Serial: 4},
		"journal added": {Lineage: s.Lineage, Serial: 4, Journal: &JournalMark{ID: "j", Seq: 1}},
	} {
		if m.Equal(o) || o.Equal(m) {
			t.Errorf("%s: %+v equals %+v", name, o, m)
		}
	}
	// A journal replayed on load (an apply killed before its commit) moves
	// the mark without the serial.
	s.Journal = &JournalMark{ID: "j", Seq: 2}
	a := s.DataMark()
	s.Journal.Seq = 3
	if b := s.DataMark(); a.Equal(b) {
		t.Errorf("more journal calls, same mark: %+v %+v", a, b)
	}
}
