package engine_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/state/local"
)

// answerTransport answers each operation of the service with one fixed 200
// JSON body: searches with search, profile reads with page, enrichments
// with enrich.
type answerTransport struct{ search, page, enrich []byte }

func (a answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := a.search
	switch {
	case strings.HasSuffix(req.URL.Path, "/enrich"):
		body = a.enrich
	case strings.HasSuffix(req.URL.Path, "/page"):
		body = a.page
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// answerConfig makes one search, one profile read and an enrichment of
// everyone they find: every kind of call whose answer reaches the state.
const answerConfig = `
api {
  sandbox     = true
  parallelism = 3
  max_credits = 1000
}
search "a" {
  keywords    = "CTO"
  max_results = 3
}
profile "p" {
  page_name = "A_B"
}
enrich "e" {
  from = [search.a, profile.p]
}
`

// FuzzAnswerIntoState takes any answers the service might give to a
// search, a profile read and an enrichment, decoded by the real client,
// through the path apply uses: the engine journals each outcome, applies it
// to the state, and the state is committed. Whatever the journal accepted
// the state must accept too (else the engine stops with an error), the
// journal alone must replay (a kill before the commit), and the state file
// written must load again with the same people. A service answer must
// never make the state unloadable: that would lose paid calls.
func FuzzAnswerIntoState(f *testing.F) {
	for _, s := range [][3]string{
		{`[]`, `{}`, `{}`},
		{`[{}]`, `null`, `null`},
		{`[{"pageName":"A_B","networkId":"1","fullName":"A B"},{"pageName":"A_B","networkId":"2"}]`, `{"pageName":"A_B","networkId":"1"}`,
			`{"pageName":"A_B","networkId":"1","email":"a@b.c","validationStatus":"valid","creditBalance":3}`},
		{`[{"networkId":"1"},{"networkId":"1","pageName":"X"}]`, `{"pageName":"","networkId":""}`, `{"fullName":"no ids"}`},
		{`[{"pageName":"a\u0000b","fullName":"\ud800"}]`, `{"pageName":"A_B","fullName":"\ud800"}`, `{"pageName":"a\u0000b","networkId":"1"}`},
		{`{"pageName":"A_B","networkId":"1"}`, `[]`, `[{"pageName":"A_B"}]`},
		{`[{"pageName":"C_D","networkId":"7","fullName":"C D"}]`, `{"pageName":"A_B","networkId":"8","fullName":"A B"}`,
			`{"pageName":"C_D","networkId":"7","email":"c@d.e","validationStatus":"catch_all"}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]), []byte(s[2]))
	}
	cfg := load(f, answerConfig)
	f.Fuzz(func(t *testing.T, search, page, enrich []byte) {
		c, err := api.New(api.Options{BaseURL: "https://api.example", Key: "k", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: answerTransport{search, page, enrich}}, Pacer: api.NewPacer(1e9, 8, nil)})
		if err != nil {
			t.Fatal(err)
		}
		store := local.NewStore(filepath.Join(t.TempDir(), "state.json"))
		st, err := store.Load()
		if err != nil {
			t.Fatal(err)
		}
		j, err := store.OpenJournal(st)
		if err != nil {
			t.Fatal(err)
		}
		_, err = engine.Run(context.Background(), engine.Options{
			Config: cfg, Plan: build(t, cfg, st), State: st, Journal: j, Service: c, Now: func() time.Time { return t0 },
		})
		// A journal that refuses an event stops the run before anything
		// is written; any other error is an event the state could not
		// apply after the journal had accepted it.
		if err != nil && !errors.Is(err, engine.ErrJournal) {
			t.Fatalf("the run failed: %v", err)
		}
		// A kill now: the journal alone must replay.
		replayed, err := store.Load()
		if err != nil {
			t.Fatalf("the journal does not replay: %v", err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(st); err != nil {
			t.Fatalf("commit: %v", err)
		}
		back, err := store.Load()
		if err != nil {
			t.Fatalf("the state written from a service answer does not load: %v", err)
		}
		if len(back.People) != len(st.People) || len(replayed.People) != len(st.People) {
			t.Fatalf("people: %d in memory, %d replayed from the journal, %d loaded back", len(st.People), len(replayed.People), len(back.People))
		}
	})
}
