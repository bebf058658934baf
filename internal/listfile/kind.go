package listfile

import (
	"fmt"
	"strings"
)

// Kind is what the values of a column are, and so how they are matched.
type Kind int

// The kinds of values a list column may hold.
const (
	Company    Kind = iota + 1 // a company's name
	Domain                     // a company's web or e-mail domain
	Email                      // an e-mail address
	ProfileURL                 // the URL of a member's profile on the network
	PageName                   // a member's page name (or a profile URL)
	NetworkID                  // a member's network ID
)

var kindNames = [...]string{
	Company:    "company",
	Domain:     "domain",
	Email:      "email",
	ProfileURL: "profile_url",
	PageName:   "page_name",
	NetworkID:  "network_id",
}

// String is the name a configuration uses: "company", "profile_url", ...
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// KindNames lists the names of the kinds, in the order of the constants.
func KindNames() []string {
	return append([]string(nil), kindNames[1:]...)
}

// ParseKind reads a kind's name.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if k > 0 && n == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// Identity reports whether the kind names one member of the network: a
// profile URL, a page name or a network ID. An exclusion by identity acts
// before anything is paid for.
func (k Kind) Identity() bool {
	return k == ProfileURL || k == PageName || k == NetworkID
}

// Key returns the key a value is matched by: the value normalised by the
// kind's rules (CompanyKey, DomainKey, EmailKey, PageKey, NetworkIDKey).
// A value that is empty or only white space has the key "" and no error;
// one that cannot be of the kind is an error saying what was expected.
// Profile URLs and page names share their keys: a profile URL's key is its
// page name's.
func (k Kind) Key(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	switch k {
	case Company:
		return CompanyKey(v), nil
	case Domain:
		return DomainKey(v)
	case Email:
		return EmailKey(v)
	case ProfileURL:
		return profileURLKey(v)
	case PageName:
		return PageKey(v)
	case NetworkID:
		return NetworkIDKey(v)
	}
	return "", fmt.Errorf("unknown kind %d", int(k))
}

// validUTF8 is v with each byte that is no UTF-8 made U+FFFD before a
// normalisation: left in, it would keep the normalisation from reaching
// the characters after it, so the key of a key would differ (FuzzKeys).
// Keys are lower-cased before NFC for the same reason: a lower-case letter
// may compose with a mark where its capital does not.
func validUTF8(v string) string { return strings.ToValidUTF8(v, "\uFFFD") }
