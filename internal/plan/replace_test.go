package plan

import (
	"strings"
	"testing"
	"time"
)

// TestReplaceOutsideTargets: a --replace that the --target list leaves
// out is refused with the address and how to go on, rather than dropped
// without a word; a --replace inside the targets (named, through a
// target's sources, or one of several instances it names) plans as
// before.
func TestReplaceOutsideTargets(t *testing.T) {
	f := newFixture()
	f.search(`search.cto["Berlin"]`, kw("CTO", "city", "Berlin"))
	f.search(`search.cto["Hamburg"]`, kw("CTO", "city", "Hamburg"))
	f.search("search.cfo", kw("CFO"))
	f.profile("profile.founder", "Max")
	f.enrich("cto", []string{`search.cto["Berlin"]`}, 0, 0)
	f.track("champions", 30*24*time.Hour, "search.cfo")
	tests := []struct {
		targets, replace []string
		refused          string // "" when the plan is made
	}{
		{targets: []string{"search.cfo"}, replace: []string{"profile.founder"},
			refused: "--replace profile.founder names profile.founder, which --target search.cfo leaves out of the plan, so it would not be read again. Add --target profile.founder, or leave out --replace profile.founder."},
		{targets: []string{`search.cto["Hamburg"]`}, replace: []string{`search.cto["Berlin"]`},
			refused: `--replace search.cto["Berlin"] names search.cto["Berlin"], which --target search.cto["Hamburg"] leaves out`},
		{targets: []string{"search.cfo", "profile.founder"}, replace: []string{"track.champions"},
			refused: "--replace track.champions names track.champions, which --target search.cfo --target profile.founder leaves out of the plan, so its people would not be read again. Add --target track.champions"},
		{targets: []string{"search.cfo"}, replace: []string{"search.cto"},
			refused: `--replace search.cto names search.cto["Berlin"] and search.cto["Hamburg"], which --target search.cfo leaves out of the plan, so they would not run again`},
		{targets: []string{"search.cfo"}, replace: []string{"search.cfo"}},
		{targets: []string{"enrich.cto"}, replace: []string{`search.cto["Berlin"]`}},
		{targets: []string{`search.cto["Hamburg"]`}, replace: []string{"search.cto"}},
		{replace: []string{"profile.founder"}},
	}
	for _, tt := range tests {
		o := f.opts()
		o.Targets, o.Replace = tt.targets, tt.replace
		_, diags := Build(f.cfg, f.st, o)
		if tt.refused == "" {
			if diags.HasErrors() {
				t.Errorf("--target %v --replace %v refused: %v", tt.targets, tt.replace, diags)
			}
			continue
		}
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.refused) {
			t.Errorf("--target %v --replace %v: diags %q, want %q", tt.targets, tt.replace, diags.Error(), tt.refused)
		}
		// Refused before any call, as an unknown target is.
		if ds := CheckAddresses(f.cfg, f.st, tt.targets, tt.replace); !ds.HasErrors() {
			t.Errorf("--target %v --replace %v: CheckAddresses passes it", tt.targets, tt.replace)
		}
	}
}

// TestReplaceDidYouMean: a mistyped --replace gets the nearest address it
// could name, as a mistyped --target does: instances, blocks, tracks and
// modules of the configuration.
func TestReplaceDidYouMean(t *testing.T) {
	f := newFixture()
	f.search(`search.cto["Berlin"]`, kw("CTO", "city", "Berlin"))
	f.search("search.cfo", kw("CFO"))
	f.profile("profile.founder", "Max")
	f.track("champions", 30*24*time.Hour, "search.cfo")
	for _, tt := range []struct{ replace, want string }{
		{"search.cof", "Did you mean search.cfo?"},
		{`search.cto["Berln"]`, `Did you mean search.cto["Berlin"]?`},
		{"profile.fonder", "Did you mean profile.founder?"},
		{"track.champion", "Did you mean track.champions?"},
	} {
		o := f.opts()
		o.Replace = []string{tt.replace}
		_, diags := Build(f.cfg, f.st, o)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Unknown address to replace") || !strings.Contains(diags.Error(), tt.want) {
			t.Errorf("--replace %s: diags %q, want %q", tt.replace, diags.Error(), tt.want)
		}
	}
}

// TestTargetDidYouMeanTrack: a mistyped --target of a track gets the
// track, as other addresses do.
func TestTargetDidYouMeanTrack(t *testing.T) {
	f := newFixture()
	f.search("search.cfo", kw("CFO"))
	f.track("champions", 30*24*time.Hour, "search.cfo")
	o := f.opts()
	o.Targets = []string{"track.champion"}
	_, diags := Build(f.cfg, f.st, o)
	if want := "Did you mean track.champions?"; !diags.HasErrors() || !strings.Contains(diags.Error(), want) {
		t.Errorf("diags %q, want %q", diags.Error(), want)
	}
}
