package export

import (
	"strings"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// listShown is how many items a list in the Summary (or a warning) names
// before it says how many more there are: a workbook fed by ten thousand
// searches gets a line as short as one fed by ten, and every row stays
// within the 409 points Excel allows (issue 25).
var listShown = 3

// someOf joins the first listShown items with ", " and counts the rest:
// "a, b, c and 9,997 more". Its length does not grow with len(items).
func someOf(items []string) string {
	if len(items) <= listShown {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:listShown], ", ") + " and " + textfmt.Thousands(len(items)-listShown) + " more"
}
