package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
)

var apiSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "base_url"}, {Name: "base_url_v2"}, {Name: "api_key"}, {Name: "generation"},
	{Name: "rate_limit"}, {Name: "parallelism"}, {Name: "timeout"}, {Name: "credits_per_enrich"},
	{Name: "max_credits"}, {Name: "min_remaining_requests"}, {Name: "sandbox"},
}}

// decodeAPI decodes the api block into Config.API, its defaults first.
func (l *loader) decodeAPI(blocks hcl.Blocks, _ bool) {
	a := &l.cfg.API
	*a = API{
		Generation: api.Gen1, RateLimit: 1, Parallelism: api.DefaultParallelism, Timeout: 90e9,
		CreditsPerEnrich: 1, MaxCredits: 500, MinRemainingRequests: 100,
	}
	if len(blocks) == 0 {
		if !l.unreadable {
			rng := l.firstFileStart()
			l.errorf(rng, "Missing api block",
				"leadsync needs an api block that says which service to use: api { base_url = \"https://...\" }, or api { sandbox = true } for the built-in stand-in (no key needed).")
		}
		return
	}
	for _, b := range blocks[1:] {
		l.errorf(b.DefRange.Ptr(), "Duplicate api block", "There is already an api block at %s; merge the two.", shortRange(blocks[0].DefRange))
	}
	b := blocks[0]
	a.DeclRange = b.DefRange
	l.apiBlock = b
	content, ds := b.Body.Content(apiSchema)
	l.add(ds)
	at := content.Attributes
	sc := scope{}
	sandbox, sandboxState := l.boolAttr(at["sandbox"], l.base, sc)
	if sandboxState == ok {
		a.Sandbox = sandbox
	}
	a.BaseURL = l.baseURL(at, "base_url")
	a.BaseURLV2 = l.baseURL(at, "base_url_v2")
	if at["base_url"] == nil && !a.Sandbox && sandboxState != bad {
		// (A sandbox that is not true or false is the error to fix: with
		// sandbox = true no base_url is needed.)
		l.errorf(b.DefRange.Ptr(), "Missing base_url",
			"The api block needs base_url, the address of the service's first generation (like \"https://api.example.com\"), unless sandbox = true.")
	}
	if attr := at["api_key"]; attr != nil {
		a.APIKey = l.apiKey(attr)
	}
	if n, astate := l.intAttr(at["generation"], l.base, sc, 1, 2); astate == ok {
		a.Generation = api.Generation(n)
	}
	l.apiGeneration = at["generation"]
	if f, astate := l.numberAttr(at["rate_limit"], l.base, sc, false); astate == ok {
		a.RateLimit = f
		if f > 1 {
			l.warnf(at["rate_limit"].Expr.Range().Ptr(), "Rate limit above the service's",
				"The service allows 1 call per second; faster calls get status 429 and are retried, which costs time, not calls.")
		}
	}
	if n, astate := l.intAttr(at["parallelism"], l.base, sc, 1, 64); astate == ok {
		a.Parallelism = n
	}
	if d, astate := l.durationAttr(at["timeout"], l.base, sc); astate == ok {
		a.Timeout = d
		l.apiTimeout = at["timeout"]
	}
	if n, astate := l.intAttr(at["credits_per_enrich"], l.base, sc, 1, -1); astate == ok {
		a.CreditsPerEnrich = n
	}
	if n, astate := l.intAttr(at["max_credits"], l.base, sc, 1, -1); astate == ok {
		a.MaxCredits = n
	}
	if n, astate := l.intAttr(at["min_remaining_requests"], l.base, sc, 0, -1); astate == ok {
		a.MinRemainingRequests = n
	}
}

// baseURL decodes the base URL attribute name ("" when it is absent or
// refused), without its trailing slash.
func (l *loader) baseURL(at hcl.Attributes, name string) string {
	attr := at[name]
	s, _, astate := l.stringAttr(attr, l.base, scope{}, true)
	if astate != ok {
		return ""
	}
	err := CheckBaseURL(s)
	if err == nil {
		err = CheckBasePath(s, name == "base_url_v2")
	}
	if err != nil {
		l.errorf(attr.Expr.Range().Ptr(), "Invalid "+name, "%s: %s.", name, err)
		return ""
	}
	return strings.TrimSuffix(s, "/")
}

// apiKey decodes api_key, keeps it among the secrets never shown, and
// warns when it is written out in the files or comes from a variable that
// is not sensitive.
func (l *loader) apiKey(attr *hcl.Attribute) string {
	if len(attr.Expr.Variables()) == 0 {
		l.secretRange(attr.Expr)
		l.warnf(attr.NameRange.Ptr(), "API key written in the configuration",
			"Anyone who can read these files can use the key. Declare a variable with sensitive = true and give it with LEADSYNC_VAR_<name>, or leave api_key out and set LEADSYNC_API_KEY.")
	}
	s, sens, astate := l.stringAttr(attr, l.base, scope{}, true)
	if astate != ok {
		return ""
	}
	l.secrets[s] = true
	if !sens && len(attr.Expr.Variables()) > 0 {
		l.warnf(attr.Expr.Range().Ptr(), "API key from a variable that is not sensitive",
			"Mark the variable with sensitive = true so that its value never appears in output.")
	}
	return s
}

// isLoopbackHost reports whether h is a loopback host: localhost,
// 127.0.0.0/8 or ::1.
func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// CheckBaseURL checks a service address: an absolute https:// URL without
// query or fragment, or http:// for a loopback host (a local stand-in). The
// rule exists because the API key travels with every request.
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute URL; write it like \"https://api.example.com\"", raw)
	}
	if strings.HasSuffix(u.Host, ":") {
		// "http://127.0.0.1:" (a port left out of a template) would call
		// the scheme's default port, 80 or 443: not what was meant.
		return fmt.Errorf("%q has an empty port after the colon; give the port (\"http://127.0.0.1:8787\") or leave the colon out", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return fmt.Errorf("%q uses http://, which would send the API key unencrypted; use https:// (http:// is accepted only for localhost, 127.0.0.0/8 and [::1])", raw)
		}
	default:
		return fmt.Errorf("%q uses the scheme %q; use https://", raw, u.Scheme)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment; give only the scheme, host and optional path prefix", raw)
	}
	if u.User != nil {
		return fmt.Errorf("the URL has credentials in it; remove them (the API key goes in api_key or LEADSYNC_API_KEY)")
	}
	return nil
}

// callPaths are the paths leadsync puts after each generation's address
// (spec sections 4 and 9): the first generation's under the /v1 prefix, the
// second's with none.
var callPaths = map[bool][]string{
	false: {"/v1", "/v1/scrap", "/v1/scrap/fields", "/v1/scrap/page", "/v1/scrap/enrich", "/v1/billing"},
	true:  {"/search", "/scrap"},
}

// CheckBasePath checks that a service address accepted by CheckBaseURL does
// not already end in a path leadsync adds to it: base_url
// "https://api.example.com/v1" would send the calls to /v1/v1/scrap, which
// the service answers with a bare 404. gen2 is set for base_url_v2, whose
// calls have no prefix, so the first generation's /v1 is wrong there too.
func CheckBasePath(raw string, gen2 bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // CheckBaseURL reports it
	}
	p := strings.TrimRight(u.Path, "/")
	tails := callPaths[gen2]
	if gen2 {
		tails = append(append([]string{}, callPaths[false]...), tails...)
	}
	found := ""
	for _, t := range tails {
		if len(t) > len(found) && len(p) >= len(t) && strings.EqualFold(p[len(p)-len(t):], t) {
			found = t
		}
	}
	if found == "" {
		return nil
	}
	fixed := *u
	fixed.Path = p[:len(p)-len(found)]
	fixed.RawPath = ""
	tail := p[len(p)-len(found):]
	calls := "the first generation's calls go to {base_url}/v1/scrap, {base_url}/v1/billing and so on"
	first := "/v1/scrap"
	what := "which leadsync adds itself"
	if gen2 {
		calls, first = "the second generation's calls go to {base_url_v2}/search and {base_url_v2}/scrap", "/search"
		if strings.HasPrefix(found, "/v1") {
			what = "the first generation's prefix, which the second generation does not have"
		}
	}
	return fmt.Errorf("%q already ends in %s, %s: %s, so these would go to %s%s and fail (404 Not Found). Drop %s: %q",
		raw, tail, what, calls, p, first, tail, fixed.String())
}
