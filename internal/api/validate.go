package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/leadsync/leadsync/internal/person"
)

// An answer is checked before it counts. A 200 whose body is empty, null,
// an empty object, a list holding null, leads without networkId or
// pageName, or a profile of another person than the one asked for is not
// the service's answer to this call, whatever its status: it is an error
// (KindDecode, or KindMismatch for another person), retried where the
// retry policy allows, never a success that state would record and the
// next plan would take as done.

// checker validates a decoded 2xx answer; data is the body as received
// (not empty, not null: those are refused before decoding). It returns nil
// when the answer can be used.
type checker func(data []byte) *Error

// emptyAnswer refuses bodies that carry nothing: empty and null.
func emptyAnswer(data []byte) *Error {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) == 0:
		return &Error{Kind: KindDecode, Message: "an empty answer (no JSON at all)"}
	case string(t) == "null":
		return &Error{Kind: KindDecode, Message: "a null answer"}
	}
	return nil
}

// checkLeads refuses search results with an item that is not a lead: null,
// {}, or a lead without networkId or pageName (the person could be neither
// identified nor enriched).
func checkLeads(leads []person.Lead) *Error {
	for i, l := range leads {
		var missing []string
		if strings.TrimSpace(l.NetworkID) == "" {
			missing = append(missing, "networkId")
		}
		if strings.TrimSpace(l.PageName) == "" {
			missing = append(missing, "pageName")
		}
		if len(missing) > 0 {
			return &Error{Kind: KindDecode, Message: fmt.Sprintf("result %d of %d has no %s", i+1, len(leads), strings.Join(missing, " and "))}
		}
	}
	return nil
}

// checkFields refuses a field list that is empty or has an item without a
// search parameter or type.
func checkFields(fields []Field) *Error {
	if len(fields) == 0 {
		return &Error{Kind: KindDecode, Message: "an empty field list"}
	}
	for i, f := range fields {
		if strings.TrimSpace(f.SearchParameter) == "" || (f.Type != FieldText && f.Type != FieldArray) {
			return &Error{Kind: KindDecode, Message: fmt.Sprintf("field %d of %d has no search_parameter or no known type", i+1, len(fields))}
		}
	}
	return nil
}

// objectKeys decodes data as a JSON object and returns its members; an
// error when it is not one.
func objectKeys(data []byte) (map[string]json.RawMessage, *Error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, &Error{Kind: KindDecode, Message: "expected a JSON object"}
	}
	if len(m) == 0 {
		return nil, &Error{Kind: KindDecode, Message: "an empty object ({})"}
	}
	return m, nil
}

// hasNonEmpty reports whether member k of m is a non-empty string.
func hasNonEmpty(m map[string]json.RawMessage, k string) bool {
	var s string
	return json.Unmarshal(m[k], &s) == nil && strings.TrimSpace(s) != ""
}

// askedPage is the page name a page request names: its pageName, or the
// last path segment of its profileUrl.
func askedPage(req PageRequest) string {
	if req.PageName != "" {
		return req.PageName
	}
	return PageOfURL(req.ProfileURL)
}

// PageOfURL is the page name of a profile URL, its last path segment (""
// when none).
func PageOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := path.Base(strings.TrimRight(u.Path, "/"))
	if p == "." || p == "/" {
		return ""
	}
	return p
}

// samePage compares page names as the network does: case does not matter.
func samePage(a, b string) bool { return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) }

// PageKey is a page name in a form that is equal for two page names
// exactly when the network takes them for the same page (samePage: space
// around them and case do not matter), for use as a map key. Each
// character becomes the smallest of its case variants (unicode.SimpleFold,
// as strings.EqualFold compares them).
func PageKey(name string) string {
	name = strings.TrimSpace(name)
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Page is the page name the request names: its pageName, or the last
// path segment of its profileUrl.
func (r PageRequest) Page() string { return askedPage(r) }

// checkProfile refuses a profile answer without fullName and networkUrl,
// or whose networkUrl names another page than the one asked for.
func checkProfile(req PageRequest) checker {
	return func(data []byte) *Error {
		m, e := objectKeys(data)
		if e != nil {
			return e
		}
		if !hasNonEmpty(m, "fullName") && !hasNonEmpty(m, "networkUrl") {
			return &Error{Kind: KindDecode, Message: "a profile without fullName and networkUrl"}
		}
		var u string
		_ = json.Unmarshal(m["networkUrl"], &u)
		asked := askedPage(req)
		if got := PageOfURL(u); u != "" && asked != "" && got != "" && !samePage(got, asked) {
			return &Error{Kind: KindMismatch, Message: fmt.Sprintf("asked for %q, the answer is the profile of %q", shorten(asked), shorten(got))}
		}
		return nil
	}
}

// checkEnriched refuses an enrich answer that names nobody (neither
// pageName nor networkId) or another page than the one asked for. The
// caller compares networkId with the one it knows (see CheckEnrichedPerson).
func checkEnriched(req PageRequest) checker {
	return func(data []byte) *Error {
		m, e := objectKeys(data)
		if e != nil {
			return e
		}
		if !hasNonEmpty(m, "pageName") && !hasNonEmpty(m, "networkId") {
			return &Error{Kind: KindDecode, Message: "an enrich answer without pageName and networkId"}
		}
		var got string
		_ = json.Unmarshal(m["pageName"], &got)
		if asked := askedPage(req); got != "" && asked != "" && !samePage(got, asked) {
			return &Error{Kind: KindMismatch, Message: fmt.Sprintf("asked for %q, the answer is about %q", shorten(asked), shorten(got))}
		}
		return nil
	}
}

// CheckEnrichedPerson reports an enrich answer about another person than
// the one with networkID (when known): such an answer must never be merged
// into that person. The error is of KindMismatch and may have been charged.
func CheckEnrichedPerson(p *person.EnrichedProfile, networkID string) error {
	if p == nil || networkID == "" || p.NetworkID == "" || p.NetworkID == networkID {
		return nil
	}
	return &Error{Op: OpEnrich, Gen: Gen1, Kind: KindMismatch, Status: 200, Attempts: 1, sent: true,
		Message: fmt.Sprintf("asked for the person %s, the answer is about %s", shorten(networkID), shorten(p.NetworkID))}
}

// checkUsage refuses a billing answer without the remaining requests.
func checkUsage(data []byte) *Error {
	m, e := objectKeys(data)
	if e != nil {
		return e
	}
	var n json.Number
	if raw, ok := m["Remaining requests this month"]; !ok || json.Unmarshal(raw, &n) != nil {
		return &Error{Kind: KindDecode, Message: `a usage answer without "Remaining requests this month"`}
	}
	return nil
}
