package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
)

// fixedResults is a service whose searches return as many people as
// results names for their keywords; it reads no profile and enriches no
// one.
type fixedResults map[string]int

func (f fixedResults) Search(_ context.Context, _ api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	kw, _ := req.Params["keywords"].(string)
	leads := make([]person.Lead, f[kw])
	for i := range leads {
		id := fmt.Sprintf("%s-%d", kw, i)
		leads[i] = person.Lead{FullName: "Person " + id, PageName: id, NetworkID: id}
	}
	return &api.SearchResult{Leads: leads}, nil
}
func (fixedResults) Billing(context.Context) (*api.Usage, error) {
	return &api.Usage{RemainingRequests: 10000, InvoicingStartDate: "2026-01-01"}, nil
}
func (fixedResults) Fields(context.Context) ([]api.Field, error) { return nil, fmt.Errorf("unused") }
func (fixedResults) Page(context.Context, api.Generation, api.PageRequest) (*person.Profile, error) {
	return nil, fmt.Errorf("unused")
}
func (fixedResults) Enrich(context.Context, api.PageRequest) (*person.EnrichedProfile, error) {
	return nil, fmt.Errorf("unused")
}

// TestApplySaysASearchAtTheCapIsCapped: apply --json says capped: true for
// a plain search that returned exactly the network's cap of 300, in its
// call_done event and its summary, and false for one of 299; the text
// output says the 300 are probably cut off, and says nothing of the 299.
func TestApplySaysASearchAtTheCapIsCapped(t *testing.T) {
	const cfg = "api {\n  sandbox = true\n}\nsearch \"full\" {\n  keywords = \"full\"\n}\nsearch \"short\" {\n  keywords = \"short\"\n}\n"
	svc := fixedResults{"full": api.MaxResults, "short": api.MaxResults - 1}
	want := map[string]bool{"search.full": true, "search.short": false}

	dir := t.TempDir()
	write(t, dir, "main.leads.hcl", cfg)
	f, out, errOut := configTestFactory(dir)
	f.Service = func(*config.Config) (api.Service, error) { return svc, nil }
	if code := Run(context.Background(), f, []string{"apply", "--json", "--auto-approve"}); code != 0 {
		t.Fatalf("apply --json: exit %d: %s", code, errOut)
	}
	seen := map[string]int{}
	for _, doc := range decodeAll(t, out.Bytes(), true) {
		switch doc["message_type"] {
		case "call_done":
			call, _ := doc["call"].(map[string]any)
			addr, _ := call["address"].(string)
			if capped, _ := doc["capped"].(bool); capped != want[addr] || doc["results"] != float64(svc[strings.TrimPrefix(addr, "search.")]) {
				t.Errorf("call_done of %s: results %v, capped %v; want capped %v", addr, doc["results"], doc["capped"], want[addr])
			}
			seen[addr]++
		case "summary":
			for _, s := range asList(doc["searches"]) {
				s, _ := s.(map[string]any)
				addr, _ := s["address"].(string)
				if capped, _ := s["capped"].(bool); capped != want[addr] {
					t.Errorf("summary of %s: capped %v, want %v", addr, s["capped"], want[addr])
				}
				seen[addr+" summary"]++
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("saw %v; want a call_done and a summary line of each search", seen)
	}

	dir = t.TempDir()
	write(t, dir, "main.leads.hcl", cfg)
	f, out, errOut = configTestFactory(dir)
	f.Service = func(*config.Config) (api.Service, error) { return svc, nil }
	if code := Run(context.Background(), f, []string{"apply", "--auto-approve"}); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	text := out.String() + errOut.String()
	if !strings.Contains(text, "search.full: 300 results (the network's cap of 300: probably cut off; narrow the search)") {
		t.Errorf("the text output does not say the 300 are probably cut off:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "search.short") && strings.Contains(line, "cap") {
			t.Errorf("the search of 299 is said to be at the cap: %s", line)
		}
	}
}
