package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// fuzzKey is the key of the fuzzed client; answers may echo it.
const fuzzKey = "fz-KEY-0123456789"

// bodyTransport answers every request with one fixed body.
type bodyTransport struct {
	status int
	ct     string
	body   []byte
}

func (b bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	if b.ct != "" {
		h.Set("Content-Type", b.ct)
	}
	return &http.Response{
		StatusCode: b.status, Status: http.StatusText(b.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(b.body)), ContentLength: int64(len(b.body)), Request: req,
	}, nil
}

// FuzzDecodeAnswers feeds any answer body (2xx or not, any content type) to
// every operation's decoder, through a real Client: each call either
// returns a result or an *Error of a kind that matches the status, never
// panics, and no error text contains the key even when the answer echoes it.
func FuzzDecodeAnswers(f *testing.F) {
	for _, s := range []string{
		``, `null`, `[]`, `{}`, `[{}]`, `[null]`, `"x"`, `1e999`, `{"remainingRequests":-1}`,
		`[{"fullName":"Ana","pageName":"Ana_B","networkId":"12","location":{"city":"Köln"}}]`,
		`[{"pageName":7}]`, `[{"networkId":{"a":[1,2]}}]`, `{"email":"a@b","creditBalance":"9"}`,
		`[{"name":"keywords","type":"string","possible_values":null}]`,
		`{"fullName":"` + fuzzKey + `"`, `<html><body>` + fuzzKey + `</body></html>`,
		"{\"fullName\":\"\xff\xfe\"}", `[` + strings.Repeat(`{},`, 50) + `{}]`,
	} {
		f.Add([]byte(s), 200, "application/json")
		f.Add([]byte(s), 500, "text/html")
	}
	f.Add([]byte(`{"message":"invalid key `+fuzzKey+`"}`), 403, "application/json")
	f.Fuzz(func(t *testing.T, body []byte, status int, ct string) {
		if status < 200 || status > 599 || (status >= 300 && status < 400) {
			status = 200
		}
		c, err := New(Options{
			BaseURL: "https://api.example", BaseURLV2: "https://v2.example", Key: fuzzKey,
			HTTPClient: &http.Client{Transport: bodyTransport{status: status, ct: ct, body: body}},
			MaxRetries: -1, Pacer: NewPacer(1e9, 8, nil),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		check := func(op string, ok bool, err error) {
			t.Helper()
			if err == nil {
				if !ok {
					t.Fatalf("%s: no result and no error", op)
				}
				if status > 299 {
					t.Fatalf("%s: status %d gave a result", op, status)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: error %T is not *api.Error: %v", op, err, err)
			}
			if status <= 299 && e.Kind != KindDecode {
				t.Fatalf("%s: status %d failed with %s: %v", op, status, e.Kind, err)
			}
			// A profile read's or an enrichment's 404 in the service's
			// JSON error form is an unknown member (KindNotFound).
			notFound := status == 404 && e.Kind == KindNotFound && (op == "page" || op == "enrich")
			if status > 299 && e.Kind != kindForStatus(status) && !notFound {
				t.Fatalf("%s: status %d failed with %s: %v", op, status, e.Kind, err)
			}
			if strings.Contains(err.Error(), fuzzKey) || strings.Contains(e.Hint(), fuzzKey) {
				t.Fatalf("%s: the key is in the error: %v", op, err)
			}
		}
		fields, err := c.Fields(ctx)
		check("fields", fields != nil, err)
		for _, gen := range []Generation{Gen1, Gen2} {
			res, err := c.Search(ctx, gen, SearchRequest{Params: map[string]any{"keywords": "CTO"}})
			check("search", res != nil && res.Leads != nil, err)
			p, err := c.Page(ctx, gen, PageRequest{PageName: "Ana_B"})
			check("page", p != nil, err)
		}
		raw, err := c.Search(ctx, Gen1, SearchRequest{Params: map[string]any{"keywords": "CTO"}, Raw: true})
		check("raw search", raw != nil && len(raw.Raw) == len(raw.Leads), err)
		en, err := c.Enrich(ctx, PageRequest{PageName: "Ana_B"})
		check("enrich", en != nil, err)
		u, err := c.Billing(ctx)
		check("billing", u != nil, err)
	})
}
