package config

import (
	"testing"

	"github.com/leadsync/leadsync/internal/listfile"
)

// FuzzExclusionKeys checks that the matcher's allocation-free keys of page
// names and network IDs are listfile's keys: the rules documented are the
// rules applied.
func FuzzExclusionKeys(f *testing.F) {
	for _, s := range []string{"Max_Mustermann", "max_mustermann", "Jürgen_Müller", "https://network.example/profile/Max", "a b", "a\nb",
		"12345.ABCdef", " 12345.ab ", "12345", "page-1.0a", "\x7f", ""} {
		f.Add(s)
	}
	x := &Exclusion{}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := listfile.PageKey(s)
		if s == "" || err != nil {
			want = ""
		}
		if got := string(x.pageKey(s)); got != want {
			t.Fatalf("pageKey(%q) = %q, PageKey = %q (%v)", s, got, want, err)
		}
		want, err = listfile.NetworkIDKey(s)
		if err != nil {
			want = ""
		}
		page := x.pageKey("Some_Page")
		if got := string(x.networkIDKey(s, page)); got != want {
			t.Fatalf("networkIDKey(%q) = %q, NetworkIDKey = %q", s, got, want)
		}
		if string(page) != "some_page" {
			t.Fatalf("networkIDKey changed the page key: %q", page)
		}
	})
}

// TestColleaguesOrderFree checks that a person whose domain is not known
// is excluded by any colleague's listed domain, whichever colleague is
// learned first.
func TestColleaguesOrderFree(t *testing.T) {
	keys := listfile.NewSet(listfile.Domain)
	keys.Add("acme.de")
	block := &Exclude{Address: "exclude.competitors", By: listfile.Domain, Keys: keys}
	for _, order := range [][2]string{{"acme-holding.com", "mail.acme.de"}, {"mail.acme.de", "acme-holding.com"}} {
		x := (&Config{Excludes: []*Exclude{block}}).Exclusion()
		for _, d := range order {
			x.Learn("ACME GmbH", d)
		}
		if got := x.Match(PersonValues{Company: "Acme"}); got != block {
			t.Errorf("learned %v: a colleague of Acme matched %v", order, got)
		}
		// Their own domain, when known, is theirs.
		if got := x.Match(PersonValues{Company: "Acme", Domain: "acme-holding.com"}); got != nil {
			t.Errorf("learned %v: a person of acme-holding.com matched %v", order, got)
		}
		if got := x.Match(PersonValues{Company: "Other"}); got != nil {
			t.Errorf("learned %v: another company matched %v", order, got)
		}
	}
}

// TestListsDomain: the domains Learn keeps are those whose key a block by
// domain lists, written in any form of the key; none without such a block.
func TestListsDomain(t *testing.T) {
	keys := listfile.NewSet(listfile.Domain)
	keys.Add("acme.de")
	byDomain := &Config{Excludes: []*Exclude{{Address: "exclude.rivals", By: listfile.Domain, Keys: keys}}}
	byCompany := &Config{Excludes: []*Exclude{{Address: "exclude.rivals", By: listfile.Company, Keys: keys}}}
	for _, tt := range []struct {
		cfg    *Config
		domain string
		want   bool
	}{
		{byDomain, "acme.de", true},
		{byDomain, "Mail.ACME.de", true},
		{byDomain, "https://www.acme.de/", true},
		{byDomain, "acme-holding.com", false},
		{byDomain, "de", false},
		{byDomain, "", false},
		{byCompany, "acme.de", false},
		{&Config{}, "acme.de", false},
	} {
		x := tt.cfg.Exclusion()
		if got := x.ListsDomain(tt.domain); got != tt.want {
			t.Errorf("ListsDomain(%q) with %d blocks = %v, want %v", tt.domain, len(tt.cfg.Excludes), got, tt.want)
		}
		if x != nil {
			x.Learn("Acme", tt.domain)
			if learned := x.Match(PersonValues{Company: "Acme"}) != nil; learned != tt.want {
				t.Errorf("Learn(%q) with %d blocks: a colleague excluded %v, want %v (ListsDomain)", tt.domain, len(tt.cfg.Excludes), learned, tt.want)
			}
		}
	}
}
