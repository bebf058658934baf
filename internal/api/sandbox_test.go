package api_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/api/apitest"
	"github.com/leadsync/leadsync/internal/sandbox"
)

var start = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// sandboxClient returns a sandbox and a client of it that share one auto
// clock: the pacer's waits take no real time, and the sandbox's rate check
// sees exactly the spacing the pacer produced.
func sandboxClient(t *testing.T, sbOpts sandbox.Options, key string) (*sandbox.Server, *api.Client) {
	return sandboxClientPar(t, sbOpts, key, 4)
}

func sandboxClientPar(t *testing.T, sbOpts sandbox.Options, key string, parallelism int) (*sandbox.Server, *api.Client) {
	t.Helper()
	clock := apitest.NewAutoClock(start)
	sbOpts.Now = clock.Now
	sbOpts.NoLatency = true
	sb := sandbox.New(sbOpts)
	c, err := api.New(api.Options{
		BaseURL:    sandbox.BaseURL,
		BaseURLV2:  sandbox.BaseURLV2,
		Key:        key,
		HTTPClient: &http.Client{Transport: sb.Transport()},
		Clock:      clock,
		Pacer:      api.NewPacer(1, parallelism, clock),
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb, c
}

func kind(t *testing.T, err error) *api.Error {
	t.Helper()
	var e *api.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *api.Error", err)
	}
	return e
}

// TestSandboxOperations runs every operation of both generations against
// the sandbox.
func TestSandboxOperations(t *testing.T) {
	sb, c := sandboxClient(t, sandbox.Options{}, sandbox.DefaultKey)
	ctx := context.Background()

	fields, err := c.Fields(ctx)
	if err != nil || len(fields) != 15 {
		t.Fatalf("fields: %d, %v", len(fields), err)
	}
	req := api.SearchRequest{Params: map[string]any{"keywords": "Engineer", "countryFilter": []string{"Germany"}}}
	plain, err := c.Search(ctx, api.Gen1, req)
	if err != nil || len(plain.Leads) == 0 || len(plain.Leads) > api.MaxResults {
		t.Fatalf("search: %d leads, %v", len(plain.Leads), err)
	}
	for _, l := range plain.Leads {
		if l.NetworkID == "" || l.PageName == "" || l.Location == "" {
			t.Fatalf("incomplete lead %+v", l)
		}
	}
	req.Raw = true
	raw, err := c.Search(ctx, api.Gen1, req)
	if err != nil || len(raw.Raw) != len(plain.Leads) || len(raw.Leads) != len(plain.Leads) {
		t.Fatalf("raw search: %d raw, %d leads, %v", len(raw.Raw), len(raw.Leads), err)
	}
	for i, l := range raw.Leads {
		if l.NetworkID != plain.Leads[i].NetworkID || l.PageName != plain.Leads[i].PageName || len(raw.Raw[i].Raw) == 0 {
			t.Fatalf("raw lead %d = %+v, plain %+v", i, l, plain.Leads[i])
		}
	}
	req.Raw = false
	v2, err := c.Search(ctx, api.Gen2, req)
	if err != nil || len(v2.Leads) != len(plain.Leads) {
		t.Fatalf("gen 2 search: %d leads, %v", len(v2.Leads), err)
	}
	page := plain.Leads[0].PageName
	for _, gen := range []api.Generation{api.Gen1, api.Gen2} {
		p, err := c.Page(ctx, gen, api.PageRequest{PageName: page})
		if err != nil || p.FullName == "" {
			t.Fatalf("%s page: %+v, %v", gen, p, err)
		}
	}
	e1, err := c.Enrich(ctx, api.PageRequest{PageName: page})
	if err != nil || e1.PageName != page || e1.ID == "" {
		t.Fatalf("enrich: %+v, %v", e1, err)
	}
	e2, err := c.Enrich(ctx, api.PageRequest{PageName: plain.Leads[1].PageName})
	if err != nil || e2.CreditBalance != e1.CreditBalance-1 {
		t.Fatalf("second enrich: balance %d after %d, %v", e2.CreditBalance, e1.CreditBalance, err)
	}
	u1, err := c.Billing(ctx)
	if err != nil || u1.InvoicingStartDate != sandbox.InvoicingStartDate {
		t.Fatalf("billing: %+v, %v", u1, err)
	}
	u2, _ := c.Billing(ctx)
	if u2.RemainingRequests >= u1.RemainingRequests {
		t.Errorf("quota did not fall: %d then %d", u1.RemainingRequests, u2.RemainingRequests)
	}

	// The service's input checks come back as KindInvalid with its message.
	_, err = c.Search(ctx, api.Gen1, api.SearchRequest{Params: map[string]any{"keywords": "x", "industryFilter": []string{"Marketing"}}})
	if e := kind(t, err); e.Kind != api.KindInvalid || e.Status != 400 || e.Message == "" {
		t.Errorf("bad filter value: %v", err)
	}
	if st := sb.Stats(); st.RateLimited != 0 {
		t.Errorf("%d 429s at the pacer's rate", st.RateLimited)
	}
}

func TestSandboxWrongKey(t *testing.T) {
	sb, c := sandboxClient(t, sandbox.Options{}, "not-the-key")
	_, err := c.Billing(context.Background())
	if e := kind(t, err); e.Kind != api.KindForbidden || e.Attempts != 1 || e.MaybeCharged() {
		t.Fatalf("wrong key: %v", err)
	}
	if sb.Stats().Forbidden != 1 {
		t.Errorf("sandbox stats %+v", sb.Stats())
	}
}

// TestSandboxConcurrentPacing sends many calls of all kinds at once through
// one client: the sandbox, counting strictly at 1 call per second, answers
// no 429. Parallelism is 1 because on an auto clock a second call in flight
// could move the time on while the first is still on its way to the
// sandbox, which real time does not do by a whole second.
func TestSandboxConcurrentPacing(t *testing.T) {
	sb, c := sandboxClientPar(t, sandbox.Options{}, sandbox.DefaultKey, 1)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch i % 4 {
			case 0:
				_, err = c.Search(ctx, api.Gen1, api.SearchRequest{Params: map[string]any{"keywords": "Manager"}})
			case 1:
				_, err = c.Search(ctx, api.Gen2, api.SearchRequest{Params: map[string]any{"keywords": "Sales"}})
			case 2:
				_, err = c.Billing(ctx)
			case 3:
				_, err = c.Fields(ctx)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if st := sb.Stats(); st.RateLimited != 0 || st.Accepted != 24 || st.MaxInFlight > 1 {
		t.Fatalf("429s %d, accepted %d, max in flight %d", st.RateLimited, st.Accepted, st.MaxInFlight)
	}
}

// TestSandboxFaults checks retries and the enrich policy against the
// sandbox's injected faults: no credit is ever spent twice for one person.
func TestSandboxFaults(t *testing.T) {
	tests := []struct {
		name     string
		faults   sandbox.Faults
		enrich   bool
		ok       bool
		kind     api.ErrorKind
		charged  bool
		accepted int // calls the sandbox let through
		spent    int // credits spent on the person
	}{
		{name: "429 storm with Retry-After", faults: sandbox.Faults{Storm429: 3, RetryAfter: "2"}, enrich: true, ok: true, accepted: 1, spent: 1},
		{name: "429 storm without Retry-After", faults: sandbox.Faults{Storm429: 4}, ok: true, accepted: 1},
		{name: "dropped connection: enrich not retried", faults: sandbox.Faults{Drop: 1}, enrich: true, kind: api.KindNetwork, charged: true, accepted: 1, spent: 1},
		{name: "dropped connection: search retried", faults: sandbox.Faults{Drop: 1}, kind: api.KindNetwork, charged: true, accepted: 7},
		{name: "500: enrich not retried", faults: sandbox.Faults{Status500: 1}, enrich: true, kind: api.KindServer, charged: true, accepted: 1, spent: 0},
		{name: "truncated: enrich not retried", faults: sandbox.Faults{Truncate: 1}, enrich: true, kind: api.KindDecode, charged: true, accepted: 1, spent: 1},
		{name: "HTML page: search retried", faults: sandbox.Faults{HTML: 1}, kind: api.KindDecode, charged: true, accepted: 7},
		{name: "HTML 502: enrich", faults: sandbox.Faults{HTML: 1, HTMLStatus: 502}, enrich: true, kind: api.KindServer, charged: true, accepted: 1},
		{name: "key revoked", faults: sandbox.Faults{RevokeKeyAfter: -1}, kind: api.KindForbidden, accepted: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.faults
			if f.RevokeKeyAfter < 0 {
				f.RevokeKeyAfter = 0
			}
			sb, c := sandboxClient(t, sandbox.Options{Faults: f}, sandbox.DefaultKey)
			if tt.faults.RevokeKeyAfter < 0 {
				// Revoke after one accepted call: the first billing passes.
				f.RevokeKeyAfter = 1
				sb.SetFaults(f)
				if _, err := c.Billing(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			page := sb.Population()[0].PageName
			var err error
			if tt.enrich {
				_, err = c.Enrich(context.Background(), api.PageRequest{PageName: page})
			} else if tt.faults.RevokeKeyAfter < 0 {
				_, err = c.Billing(context.Background())
			} else {
				_, err = c.Search(context.Background(), api.Gen1, api.SearchRequest{Params: map[string]any{"keywords": "Engineer"}})
			}
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				e := kind(t, err)
				if e.Kind != tt.kind || e.MaybeCharged() != tt.charged {
					t.Fatalf("got %v (kind %v, charged %v), want %v, charged %v", err, e.Kind, e.MaybeCharged(), tt.kind, tt.charged)
				}
			}
			st := sb.Stats()
			accepted := st.Accepted
			if tt.faults.RevokeKeyAfter < 0 {
				accepted-- // the first billing
			}
			if accepted != tt.accepted || st.Enriched[page] != tt.spent {
				t.Errorf("accepted %d, credits spent on %s: %d; want %d and %d", accepted, page, st.Enriched[page], tt.accepted, tt.spent)
			}
			if st.Enriched[page] > 1 {
				t.Errorf("paid twice for %s", page)
			}
		})
	}
}
