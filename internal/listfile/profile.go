package listfile

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// profileMarkers are the path segments after which a profile URL names
// the page: /profile/Max_Mustermann, /in/max-mustermann, /pub/...
var profileMarkers = []string{"profile", "profiles", "in", "pub"}

// localeSegment is a path segment that names a language or a locale
// ("de", "en-US", "de_DE"): a form of the same page, not the page.
var localeSegment = regexp.MustCompile(`^[A-Za-z]{2}([-_][A-Za-z]{2})?$`)

// PageFromURL returns the page name a profile URL names, as written (case
// kept), by these rules:
//
//   - the scheme may be http, https or none ("www.network.com/profile/Max",
//     "//network.com/profile/Max"); the host is not checked (sub-domains of
//     a country, "de.network.com", are the same site);
//   - the query ("?sc_o=..."), the fragment and a trailing slash are
//     ignored; each segment is percent-decoded;
//   - the page name is the segment after the first "profile", "profiles",
//     "in" or "pub" ("/de/profile/Max_Mustermann/cv" -> "Max_Mustermann");
//   - without such a segment, it is the last segment that does not name a
//     locale ("/Max_Mustermann/de" -> "Max_Mustermann").
//
// ok is false when s is not a URL with a path that names a page.
func PageFromURL(s string) (page string, ok bool) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "http://"):
		s = s[strings.Index(s, "://")+3:]
	case strings.HasPrefix(s, "//"):
		s = s[2:]
	case strings.Contains(lower, "://"):
		return "", false // another scheme
	default:
		host, _, found := strings.Cut(s, "/")
		if !found || !strings.Contains(host, ".") || strings.ContainsAny(host, " @") {
			return "", false
		}
	}
	host, p, found := strings.Cut(s, "/")
	if !found || host == "" || strings.ContainsAny(host, " ") {
		return "", false
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	var segs []string
	for _, seg := range strings.Split(p, "/") {
		if seg == "" {
			continue
		}
		if dec, err := url.PathUnescape(seg); err == nil {
			seg = dec
		}
		segs = append(segs, seg)
	}
	for i, seg := range segs {
		for _, m := range profileMarkers {
			if strings.EqualFold(seg, m) && i+1 < len(segs) {
				return segs[i+1], true
			}
		}
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if !localeSegment.MatchString(segs[i]) {
			return segs[i], true
		}
	}
	return "", false
}

// PageKey normalises a page name, or the page name of a profile URL
// (PageFromURL): NFC and lower case, as the network ignores its case
// (Max_Mustermann and max_mustermann are one member). A page name has no
// white space inside: a value with some is most likely a full name in the
// wrong column, and an error.
func PageKey(v string) (string, error) {
	page := strings.TrimSpace(v)
	if p, ok := PageFromURL(page); ok {
		page = p
	} else if strings.Contains(page, "://") || strings.Contains(page, "/") {
		return "", fmt.Errorf("expected a page name such as Max_Mustermann or a profile URL, got %q", v)
	}
	if page == "" || strings.IndexFunc(page, unicode.IsSpace) >= 0 {
		return "", fmt.Errorf("expected a page name such as Max_Mustermann (no spaces), got %q", v)
	}
	return norm.NFC.String(strings.ToLower(validUTF8(page))), nil
}

// profileURLKey is the key of a profile URL: its page name's (PageKey).
// A value that is not a URL is an error: a column said to hold profile
// URLs that holds something else is most likely the wrong column.
func profileURLKey(v string) (string, error) {
	page, ok := PageFromURL(v)
	if !ok {
		return "", fmt.Errorf("expected a profile URL such as https://network.example/profile/Max_Mustermann, got %q", v)
	}
	return PageKey(page)
}

// IsNetworkID reports whether s has the form of a network ID: digits, a
// dot, hex digits.
func IsNetworkID(s string) bool {
	digits, hex, ok := strings.Cut(s, ".")
	if !ok || digits == "" || hex == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	for i := 0; i < len(hex); i++ {
		c := hex[i] | 0x20
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// NetworkIDKey normalises a network ID (<digits>.<hex>): the hex digits in
// lower case.
func NetworkIDKey(v string) (string, error) {
	s := strings.TrimSpace(v)
	if !IsNetworkID(s) {
		return "", fmt.Errorf("expected a network ID such as 12345678.a1b2c3 (digits, a dot, hex digits), got %q", v)
	}
	return strings.ToLower(s), nil
}
