package listfile

import (
	"fmt"
	"net/mail"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/unicode/norm"
)

// DomainKey normalises a domain to the registrable domain it belongs to:
//
//   - an e-mail address stands for its domain ("info@acme.de" -> "acme.de"),
//     a URL for its host ("https://www.acme.de/about" -> "acme.de"); a port
//     and a trailing dot are dropped;
//   - lower case; an international name in its ASCII form
//     ("müller.de" -> "xn--mller-kva.de");
//   - the registrable domain: the public suffix (by the Public Suffix List,
//     "de", "co.uk", "github.io") and one label more. "www.acme.de",
//     "mail.acme.de" and "acme.de" are all "acme.de", so a list of
//     "mail.acme.de" excludes the people of "acme.de" and of every other
//     sub-domain of it; "shop.acme.co.uk" is "acme.co.uk", not "co.uk".
//
// A public suffix alone ("co.uk", "de") is no company's domain: an error.
func DomainKey(v string) (string, error) {
	host := strings.ToLower(strings.TrimSpace(v))
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && isDigits(host[i+1:]) {
		host = host[:i]
	}
	host = strings.TrimSuffix(host, ".")
	ascii, err := asciiHost(host)
	if err != nil || !strings.Contains(ascii, ".") {
		return "", fmt.Errorf("expected a domain such as acme.de, got %q", v)
	}
	reg, err := publicsuffix.EffectiveTLDPlusOne(ascii)
	if err != nil {
		return "", fmt.Errorf("%q is a public suffix (like co.uk or de), under which companies register their domains: not a company's domain", v)
	}
	return reg, nil
}

// hostLabel reports whether l is a label of a host name in lower-case
// ASCII: letters, digits and hyphens (and the underscore some mail hosts
// use), not starting or ending with a hyphen.
func hostLabel(l string) bool {
	if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// asciiHost returns a host name in lower-case ASCII (an international name
// as punycode), checking each label.
func asciiHost(host string) (string, error) {
	if host == "" {
		return "", fmt.Errorf("empty host")
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		// Lookup rejects some names mail systems accept (an underscore);
		// plain ASCII is checked label by label below instead.
		if !isASCII(host) {
			return "", err
		}
		ascii = host
	}
	ascii = strings.ToLower(ascii)
	for _, l := range strings.Split(ascii, ".") {
		if !hostLabel(l) {
			return "", fmt.Errorf("bad label %q", l)
		}
	}
	return ascii, nil
}

// EmailKey normalises an e-mail address: "mailto:" and a display name
// ("Max <max@acme.de>") are dropped, and the whole address is in lower
// case, the part before the @ too (nearly every mail server ignores its
// case). The domain is in its ASCII form, as for DomainKey, but not cut to
// the registrable domain. Nothing else is folded: dots and "+tags" of the
// part before the @ stay ("max.m+news@" is not "maxm@").
func EmailKey(v string) (string, error) {
	s := strings.TrimSpace(v)
	if len(s) >= 7 && strings.EqualFold(s[:7], "mailto:") {
		s = strings.TrimSpace(s[7:])
	}
	if strings.ContainsAny(s, "<>") {
		a, err := mail.ParseAddress(s)
		if err != nil {
			return "", fmt.Errorf("expected an e-mail address such as max@acme.de, got %q", v)
		}
		s = a.Address
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.ContainsAny(s, " \t,;") {
		return "", fmt.Errorf("expected an e-mail address such as max@acme.de, got %q", v)
	}
	local := norm.NFC.String(strings.ToLower(validUTF8(s[:at])))
	domain, err := asciiHost(strings.ToLower(strings.TrimSuffix(s[at+1:], ".")))
	if err != nil || !strings.Contains(domain, ".") {
		return "", fmt.Errorf("expected an e-mail address such as max@acme.de, got %q (the part after @ is not a domain)", v)
	}
	return local + "@" + domain, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
