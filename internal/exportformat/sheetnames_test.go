package exportformat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWorkbookNames: continuations are "<name> (2)" ..., cut to Excel's 31
// characters, and never take the name of a sheet configured after them nor
// the Summary's; a sheet named Summary moves the Summary to its fallback.
func TestWorkbookNames(t *testing.T) {
	long := strings.Repeat("x", 31)
	tests := []struct {
		sheets  []string
		parts   []int
		summary string
		want    [][]string
	}{
		{[]string{"CTOs"}, []int{1}, "Summary", [][]string{{"CTOs"}}},
		{[]string{"CTOs", "CFOs"}, []int{3, 0}, "Summary", [][]string{{"CTOs", "CTOs (2)", "CTOs (3)"}, {"CFOs"}}},
		{[]string{"Leads", "Leads (2)"}, []int{2, 1}, "Summary", [][]string{{"Leads", "Leads (3)"}, {"Leads (2)"}}},
		{[]string{long}, []int{2}, "Summary", [][]string{{long, strings.Repeat("x", 27) + " (2)"}}},
		{[]string{"summary", "Summary"}, []int{2, 1}, SummaryFallback, [][]string{{"summary", "summary (3)"}, {"Summary (2)"}}},
	}
	for _, tt := range tests {
		sum, got := WorkbookNames(tt.sheets, tt.parts)
		if sum != tt.summary {
			t.Errorf("%v: summary %q, want %q", tt.sheets, sum, tt.summary)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v %v (-want +got):\n%s", tt.sheets, tt.parts, diff)
		}
	}
}
