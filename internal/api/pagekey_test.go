package api

import "testing"

// PageKey is equal for two page names exactly when samePage holds: the
// plan uses it to find profile blocks that read the same person.
func TestPageKeyAgreesWithSamePage(t *testing.T) {
	names := []string{
		"Erika_Musterfrau", "erika_musterfrau", " ERIKA_MUSTERFRAU ", "Erika_Mustermann",
		"Jürgen_Bülow", "JÜRGEN_BÜLOW", "jürgen_bulow",
		"K_Kelvin", "\u212a_kelvin", // KELVIN SIGN folds with K and k
		"straße", "STRASSE", // no simple fold: different pages
		"ǅemal", "Ǆemal", "ǆemal", // titlecase digraphs
		"", " ", "\xff", "\xfe",
	}
	for _, a := range names {
		for _, b := range names {
			if got, want := PageKey(a) == PageKey(b), samePage(a, b); got != want {
				t.Errorf("PageKey(%q) == PageKey(%q) is %v; samePage says %v", a, b, got, want)
			}
		}
	}
	if got := (PageRequest{ProfileURL: "https://network.example/profile/Erika_Musterfrau/"}).Page(); got != "Erika_Musterfrau" {
		t.Errorf("Page of a profile URL = %q", got)
	}
	if got := (PageRequest{PageName: "Max_Mustermann"}).Page(); got != "Max_Mustermann" {
		t.Errorf("Page of a page name = %q", got)
	}
}
