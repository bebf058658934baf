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
