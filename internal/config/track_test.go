package config

import (
	"reflect"
	"testing"
	"time"
)

func TestTrackBlock(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{FS: memFS(map[string]string{"main.leads.hcl": `
api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin", "Wien"])
  keywords = "CTO"
  city     = each.value
}
profile "founder" {
  page_name = "Max_Mustermann"
}
enrich "contacts" {
  from       = [search.cto["Wien"]]
  refresh_on = ["company", "title"]
}
track "champions" {
  from  = [enrich.contacts, profile.founder, search.cto["Wien"]]
  every = "7d"
}
track "all" {
  from = [search.cto]
}
`})})
	if len(cfg.Tracks) != 2 {
		t.Fatalf("tracks %+v", cfg.Tracks)
	}
	ch := cfg.Track("track.champions")
	if ch == nil || ch.Every != 7*24*time.Hour || !reflect.DeepEqual(ch.From, []string{"enrich.contacts", "profile.founder", `search.cto["Wien"]`}) {
		t.Errorf("track.champions = %+v", ch)
	}
	// The people of an enrich block come from its sources: each once.
	if got := cfg.TrackSources(ch.From); !reflect.DeepEqual(got, []string{`search.cto["Wien"]`, "profile.founder"}) {
		t.Errorf("sources %q", got)
	}
	if all := cfg.Track("track.all"); all.Every != DefaultTrackEvery || len(cfg.TrackSources(all.From)) != 2 {
		t.Errorf("track.all = %+v", all)
	}
	if e := cfg.Enriches[0]; !reflect.DeepEqual(e.RefreshOn, []string{"company", "title"}) {
		t.Errorf("refresh_on %q", e.RefreshOn)
	}
}
