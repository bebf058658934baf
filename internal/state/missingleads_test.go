package state

import (
	"strings"
	"testing"
)

// TestMissingLeadErrorAgrees: one lead ID naming nobody "names" nobody,
// two "name" nobody.
func TestMissingLeadErrorAgrees(t *testing.T) {
	for _, c := range []struct {
		all  MissingLeads
		want string
	}{
		{MissingLeads{IDs: 1, Searches: 1}, "(1 lead ID of 1 search names nobody)"},
		{MissingLeads{IDs: 2, Searches: 1}, "(2 lead IDs of 1 search name nobody)"},
	} {
		if err := missingLeadError("search.a", 0, "x", c.all); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %s", c.all, err, c.want)
		}
	}
}

// TestCheckNamesANullSearchBesideALeadIDOfNobody: a null search beside a
// lead ID naming nobody is named as such (counting the lead IDs skips it),
// not reported as a crash.
func TestCheckNamesANullSearchBesideALeadIDOfNobody(t *testing.T) {
	s := New()
	s.Lineage = "00000000-0000-4000-8000-000000000001"
	s.Searches["search.a"] = &Search{LeadIDs: []string{"ghost"}}
	s.Searches["search.zz"] = nil
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `search "search.zz" is null`) {
		t.Errorf("Check: %v, want the null search named", err)
	}
}
