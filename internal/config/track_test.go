package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
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

func TestChangesSheetAndSheetWhere(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{FS: memFS(map[string]string{"main.leads.hcl": `
api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin", "Wien"])
  keywords = "CTO"
  city     = each.value
}
enrich "contacts" {
  from = [search.cto]
}
track "champions" {
  from = [enrich.contacts]
}
export "crm" {
  path = "out/crm.xlsx"
  sheet "Job changes" {
    changes = [track.champions, search.cto, enrich.contacts]
    since   = "30d"
  }
  sheet "Reachable" {
    from  = [search.cto]
    where = person.validationStatus == "valid" && !person.private
  }
}
`})})
	sheets := cfg.Exports[0].Sheets
	ch, re := sheets[0], sheets[1]
	if !reflect.DeepEqual(ch.Changes, []string{"track.champions", "search.cto", "enrich.contacts"}) || ch.Since != 30*24*time.Hour || ch.From != nil {
		t.Errorf("changes sheet %+v", ch)
	}
	if re.Where == nil || !reflect.DeepEqual(re.WhereFields, []string{"validationStatus", "private"}) {
		t.Fatalf("where sheet %+v", re)
	}
	for _, c := range []struct {
		status  string
		private cty.Value
		want    bool
	}{
		{"valid", cty.False, true},
		{"valid", cty.True, false},
		{"catch all", cty.False, false},
	} {
		ok, err := cfg.MatchPerson(re, map[string]cty.Value{"validationStatus": cty.StringVal(c.status), "private": c.private})
		if err != nil || ok != c.want {
			t.Errorf("%s %v: %v %v, want %v", c.status, c.private.True(), ok, err, c.want)
		}
	}
	// A field not given is null: the where cannot be decided, and the
	// error says where it is.
	if _, err := cfg.MatchPerson(re, map[string]cty.Value{"validationStatus": cty.StringVal("valid")}); err == nil || !strings.Contains(err.Error(), "main.leads.hcl:24") {
		t.Errorf("a where on an unknown value: %v", err)
	}
	// The digest of an export changes with its where and its changes.
	d := cfg.ExportDigest(cfg.Exports[0])
	re.Where = nil
	if cfg.ExportDigest(cfg.Exports[0]) == d {
		t.Error("the export digest ignores the sheet's where")
	}
}
