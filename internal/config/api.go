package config

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
)

var apiSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "base_url"}, {Name: "base_url_v2"}, {Name: "api_key"}, {Name: "generation"},
	{Name: "rate_limit"}, {Name: "parallelism"}, {Name: "timeout"}, {Name: "credits_per_enrich"},
	{Name: "max_credits"}, {Name: "min_remaining_requests"}, {Name: "sandbox"},
}}

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
	for _, name := range []string{"base_url", "base_url_v2"} {
		attr := at[name]
		s, _, astate := l.stringAttr(attr, l.base, sc, true)
		if astate != ok {
			continue
		}
		err := CheckBaseURL(s)
		if err == nil {
			err = CheckBasePath(s, name == "base_url_v2")
		}
		if err != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid "+name, "%s: %s.", name, err)
			continue
		}
		if name == "base_url" {
			a.BaseURL = strings.TrimSuffix(s, "/")
		} else {
			a.BaseURLV2 = strings.TrimSuffix(s, "/")
		}
	}
	if at["base_url"] == nil && !a.Sandbox && sandboxState != bad {
		// (A sandbox that is not true or false is the error to fix: with
		// sandbox = true no base_url is needed.)
		l.errorf(b.DefRange.Ptr(), "Missing base_url",
			"The api block needs base_url, the address of the service's first generation (like \"https://api.example.com\"), unless sandbox = true.")
	}
	if attr := at["api_key"]; attr != nil {
		if len(attr.Expr.Variables()) == 0 {
			l.secretRange(attr.Expr)
			l.warnf(attr.NameRange.Ptr(), "API key written in the configuration",
				"Anyone who can read these files can use the key. Declare a variable with sensitive = true and give it with LEADSYNC_VAR_<name>, or leave api_key out and set LEADSYNC_API_KEY.")
		}
		if s, sens, astate := l.stringAttr(attr, l.base, sc, true); astate == ok {
			a.APIKey = s
			l.secrets[s] = true
			if !sens && len(attr.Expr.Variables()) > 0 {
				l.warnf(attr.Expr.Range().Ptr(), "API key from a variable that is not sensitive",
					"Mark the variable with sensitive = true so that its value never appears in output.")
			}
		}
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
