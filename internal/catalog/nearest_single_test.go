package catalog

import (
	"slices"
	"testing"
)

func TestNearestIgnoresSingleLetterContainment(t *testing.T) {
	if got := Nearest("region", []string{"n", "cities", "api_key"}, 3); slices.Contains(got, "n") {
		t.Errorf("Nearest(region) = %v: a one-letter name is no hint", got)
	}
	if got := Nearest("IT", []string{"Internet and IT", "Insurance"}, 1); !slices.Equal(got, []string{"Internet and IT"}) {
		t.Errorf("Nearest(IT) = %v, want Internet and IT", got)
	}
}
