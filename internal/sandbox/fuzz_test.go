package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// fuzzServer is shared by the fuzz targets: a small population, no limit,
// no latency.
var fuzzServer = New(Options{People: 200, RateLimit: -1, NoLatency: true, Credits: 1 << 30, Quota: 1 << 30})

func fuzzHeader() http.Header {
	h := http.Header{}
	h.Set("X-Api-Key", DefaultKey)
	return h
}

// FuzzSearchBody: any body gets 200 with at most 300 results, or 400 with a
// message; never a panic.
func FuzzSearchBody(f *testing.F) {
	for _, seed := range []string{
		`{"keywords":"Engineer"}`, `{"keywords":"x","raw":true}`, `{"searchUrl":"https://n.example/s?keywords=a&countryFilter=Spain"}`,
		`{"keywords":"a","industryFilter":["Consulting"],"city":"Berlin"}`, `{"keywords":1}`, `[]`, `{`, `null`, `{"keywords":"ß**"}`,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, gen1 bool) {
		path := "/search"
		if gen1 {
			path = "/v1/scrap"
		}
		rep := fuzzServer.handle(context.Background(), http.MethodPost, path, fuzzHeader(), []byte(body), nil)
		switch rep.status {
		case http.StatusOK:
			var items []json.RawMessage
			if err := json.Unmarshal(rep.body, &items); err != nil || len(items) > 300 {
				t.Fatalf("200 with %d items: %v", len(items), err)
			}
		case http.StatusBadRequest:
			var e errorBody
			if err := json.Unmarshal(rep.body, &e); err != nil || e.Message == "" {
				t.Fatalf("400 without a message: %s", rep.body)
			}
		default:
			t.Fatalf("status %d for %q", rep.status, body)
		}
	})
}

// FuzzPageBody: the profile read and enrich answer 200 or 400 (an unknown
// member is 400 too).
func FuzzPageBody(f *testing.F) {
	page := fuzzServer.Population()[0].PageName
	for _, seed := range []string{
		`{"pageName":"` + page + `"}`, `{"profileUrl":"` + ProfileURLPrefix + page + `"}`, `{"pageName":"a","profileUrl":"b"}`,
		`{}`, `{"profileUrl":"https://x/%zz"}`, `{"pageName":null}`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, body string, enrich bool) {
		path := "/v1/scrap/page"
		if enrich {
			path = "/v1/scrap/enrich"
		}
		rep := fuzzServer.handle(context.Background(), http.MethodPost, path, fuzzHeader(), []byte(body), nil)
		switch rep.status {
		case http.StatusOK, http.StatusBadRequest:
			if !json.Valid(rep.body) {
				t.Fatalf("invalid JSON answer %q", rep.body)
			}
		default:
			t.Fatalf("status %d for %q", rep.status, body)
		}
	})
}
