package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestUnknownMemberMessages: what a refused page name reads as, by status,
// body and operation. The spec's codes are 400, 403, 429 and 500, so an
// unknown member is most probably a 400 (what the sandbox answers); a 404
// in the service's JSON error form on a profile read or enrichment is read
// the same way. Either speaks of the page name, never of api.base_url as
// the cause. A 404 that is a web page, or on any other operation, is what
// a wrong base URL gives, and says so.
func TestUnknownMemberMessages(t *testing.T) {
	const page = "Juergen_vonBuelowX"
	jsonBody := func(status int, body string) func(w http.ResponseWriter, r *http.Request, n int) {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	htmlBody := func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		w.Write([]byte("<html><head><title>404 Not Found</title></head><body>nginx</body></html>"))
	}
	tests := []struct {
		name    string
		op      string
		url     bool // ask by profileUrl instead of pageName
		handler func(w http.ResponseWriter, r *http.Request, n int)
		kind    ErrorKind
		err     string // the error contains this
		hint    string // the hint contains this
		notHint string // and never this
	}{
		{
			name: "400 on a profile read", op: OpPage, kind: KindInvalid,
			handler: jsonBody(400, `{"message":"no member with pageName \"Juergen_vonBuelowX\""}`),
			err:     `page (generation 2): invalid request (HTTP 400): no member with pageName "Juergen_vonBuelowX"`,
			hint:    `no member with the page name "Juergen_vonBuelowX": check page_name or profile_url of the profile block`,
			notHint: "base_url",
		},
		{
			name: "400 on a profile read by URL, message without the page", op: OpPage, url: true, kind: KindInvalid,
			handler: jsonBody(400, `{"error":"Bad Request"}`),
			err:     `page (generation 2): invalid request (HTTP 400): Bad Request (page name "Juergen_vonBuelowX")`,
			hint:    `page name "Juergen_vonBuelowX"`,
			notHint: "base_url",
		},
		{
			name: "400 on an enrichment", op: OpEnrich, kind: KindInvalid,
			handler: jsonBody(400, `{"message":"no member with pageName \"Juergen_vonBuelowX\""}`),
			err:     `enrich: invalid request (HTTP 400): no member with pageName`,
			hint:    `no member with the page name "Juergen_vonBuelowX": the person may have changed their page name`,
			notHint: "base_url",
		},
		{
			name: "404 in the service's JSON error form on a profile read", op: OpPage, kind: KindNotFound,
			handler: jsonBody(404, `{"message":"member not found"}`),
			err:     `page (generation 2): no such member (HTTP 404): member not found (page name "Juergen_vonBuelowX")`,
			hint:    `the service knows no member with the page name "Juergen_vonBuelowX": check page_name or profile_url`,
			notHint: "does not look like the lead service",
		},
		{
			name: "404 in the service's JSON error form on an enrichment", op: OpEnrich, kind: KindNotFound,
			handler: jsonBody(404, `{"error":"no such profile"}`),
			err:     `enrich: no such member (HTTP 404): no such profile (page name "Juergen_vonBuelowX")`,
			hint:    `the person may have changed their page name`,
			notHint: "base_url",
		},
		{
			name: "404 web page on a profile read: the base URL", op: OpPage, kind: KindUnexpected, handler: htmlBody,
			err:  "page (generation 2): unexpected answer (HTTP 404): an HTML page: 404 Not Found",
			hint: "check api.base_url / api.base_url_v2: the address does not look like the lead service",
		},
		{
			name: "404 plain text on an enrichment: the base URL", op: OpEnrich, kind: KindUnexpected,
			handler: func(w http.ResponseWriter, r *http.Request, n int) { http.NotFound(w, r) },
			err:     "enrich: unexpected answer (HTTP 404): 404 page not found",
			hint:    "check api.base_url",
			notHint: "page name",
		},
		{
			name: "404 JSON without a message on a profile read: the base URL", op: OpPage, kind: KindUnexpected,
			handler: jsonBody(404, `{"status":404}`),
			hint:    "check api.base_url",
		},
		{
			name: "404 in the JSON error form on a search: the base URL", op: OpSearch, kind: KindUnexpected,
			handler: jsonBody(404, `{"message":"not found"}`),
			err:     "search: unexpected answer (HTTP 404): not found",
			hint:    "check api.base_url",
			notHint: "page name",
		},
		{
			name: "404 in the JSON error form on the fields: the base URL", op: OpFields, kind: KindUnexpected,
			handler: jsonBody(404, `{"message":"not found"}`),
			hint:    "check api.base_url",
		},
		{
			name: "400 on a search: the parameters", op: OpSearch, kind: KindInvalid,
			handler: jsonBody(400, `{"message":"unknown parameter \"foo\""}`),
			err:     `search: invalid request (HTTP 400): unknown parameter "foo"`,
			hint:    "check the search parameters",
			notHint: "page name",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, tc.handler)
			ctx := context.Background()
			req := PageRequest{PageName: page}
			if tc.url {
				req = PageRequest{ProfileURL: "https://network.example/profile/" + page + "/"}
			}
			var err error
			switch tc.op {
			case OpPage:
				_, err = hs.client.Page(ctx, Gen2, req)
			case OpEnrich:
				_, err = hs.client.Enrich(ctx, req)
			default:
				err = callOp(hs.client, tc.op)
			}
			e := apiErr(t, err)
			if e.Kind != tc.kind {
				t.Errorf("kind %v, want %v (%v)", e.Kind, tc.kind, e)
			}
			if hs.calls.Load() != 1 || e.MaybeCharged() {
				t.Errorf("%d calls, maybe charged %v: a refusal is final and free", hs.calls.Load(), e.MaybeCharged())
			}
			if !strings.Contains(e.Error(), tc.err) {
				t.Errorf("error %q\nwant it to contain %q", e.Error(), tc.err)
			}
			// A member unknown to the service (a track read records it as
			// having left the network) only where the hint speaks of the
			// page name.
			wantUnknown := (tc.op == OpPage || tc.op == OpEnrich) && (tc.kind == KindInvalid || tc.kind == KindNotFound)
			if got := MemberUnknown(err); got != wantUnknown {
				t.Errorf("MemberUnknown = %v, want %v", got, wantUnknown)
			}
			h := e.Hint()
			if !strings.Contains(h, tc.hint) || (tc.notHint != "" && strings.Contains(h, tc.notHint)) {
				t.Errorf("hint %q\nwant it to contain %q and not %q", h, tc.hint, tc.notHint)
			}
		})
	}
}
