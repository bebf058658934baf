package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
)

// A plan that forgets more than half of the searches and profile reads
// the workspace holds says so (issue 26.8: a second configuration applied
// to a workspace planned to forget the first's searches); half or less
// says nothing.
func TestForgetsMost(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
	f.ranRequest("search.old", t0.Add(-day), api.SearchRequest{Params: kw("old")}, 0, ids(10, 12)...)
	if p := f.build(t, f.opts()); p.ForgetsMost != nil {
		t.Fatalf("1 of 2 forgotten: %+v", p.ForgetsMost)
	}
	f.ranRequest("search.older", t0.Add(-day), api.SearchRequest{Params: kw("older")}, 0, ids(20, 22)...)
	p := f.build(t, f.opts())
	if p.ForgetsMost == nil || *p.ForgetsMost != (ForgetsMost{Forgotten: 2, Held: 3}) {
		t.Fatalf("2 of 3 forgotten: %+v", p.ForgetsMost)
	}
	if !strings.Contains(p.ForgetsMost.Text(), "forgets 2 of the 3 searches and profile reads") {
		t.Errorf("text: %s", p.ForgetsMost.Text())
	}
	b, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(b), `"forgets_most":{"forgotten":2,"held":3}`) {
		t.Errorf("JSON: %v %s", err, b)
	}
}
