package state

import "testing"

// The epoch is part of the mark when both sides know it: a workspace made
// again has another; an empty one (a record written before epochs, the
// local default workspace) is not compared.
func TestDataMarkEpoch(t *testing.T) {
	s := New()
	s.Serial = 24
	s.Epoch = "e1"
	m := s.DataMark()
	if m.Epoch != "e1" {
		t.Fatalf("mark %+v: no epoch", m)
	}
	for _, tc := range []struct {
		epoch string
		equal bool
	}{{"e1", true}, {"e2", false}, {"", true}} {
		o := m
		o.Epoch = tc.epoch
		if got := m.Equal(o); got != tc.equal {
			t.Errorf("epoch %q against %q: Equal %v, want %v", m.Epoch, tc.epoch, got, tc.equal)
		}
		if got := o.Equal(m); got != tc.equal {
			t.Errorf("epoch %q against %q: Equal %v, want %v", tc.epoch, m.Epoch, got, tc.equal)
		}
	}
}
