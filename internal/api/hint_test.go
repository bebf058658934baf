package api

import (
	"strings"
	"testing"
)

// TestForbiddenHint checks that a 403 says what to do for its cause: a
// used-up credit balance or quota is not a key problem.
func TestForbiddenHint(t *testing.T) {
	for _, tc := range []struct {
		message string
		want    string
		not     string
	}{
		{"not enough enrich credits: 0 left, 1 needed", "credit balance", "check the API key"},
		{"monthly request quota exhausted", "monthly request quota is used up", "check the API key"},
		{"invalid API key", "check the API key", ""},
		{"API key revoked", "check the API key", ""},
		{"", "credits and monthly quota", ""},
	} {
		h := (&Error{Op: OpEnrich, Kind: KindForbidden, Status: 403, Message: tc.message}).Hint()
		if !strings.Contains(h, tc.want) || (tc.not != "" && strings.Contains(h, tc.not)) {
			t.Errorf("Hint for 403 %q = %q; want it to say %q and not %q", tc.message, h, tc.want, tc.not)
		}
	}
}
