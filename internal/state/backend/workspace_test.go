package backend

import (
	"strings"
	"testing"
)

func TestCheckWorkspaceName(t *testing.T) {
	for name, ok := range map[string]bool{
		"default": true, "uk": true, "eu-west.2": true, "A_b": true, strings.Repeat("a", 64): true,
		"": false, ".": false, "..": false, "-x": false, "a/b": false, `a\b`: false, "a b": false, strings.Repeat("a", 65): false,
	} {
		if err := CheckWorkspaceName(name); (err == nil) != ok {
			t.Errorf("CheckWorkspaceName(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

func TestWorkspaceInfoIsEmpty(t *testing.T) {
	for _, tc := range []struct {
		info  WorkspaceInfo
		empty bool
	}{
		{WorkspaceInfo{}, true},
		{WorkspaceInfo{Serial: 3, Exists: true}, true},
		{WorkspaceInfo{People: 1}, false},
		{WorkspaceInfo{Blocks: 1}, false},
	} {
		if got := tc.info.IsEmpty(); got != tc.empty {
			t.Errorf("%+v: IsEmpty() = %v, want %v", tc.info, got, tc.empty)
		}
	}
}

// TestHoldings: what a workspace holds reads as English for one and for
// many (it said "1 searches and profiles").
func TestHoldings(t *testing.T) {
	for _, tc := range []struct {
		blocks, people int
		want           string
	}{
		{1, 1, "1 search or profile, 1 person"},
		{1, 2, "1 search or profile, 2 people"},
		{3, 0, "3 searches and profiles, 0 people"},
		{0, 1200, "0 searches and profiles, 1,200 people"},
	} {
		if got := Holdings(tc.blocks, tc.people); got != tc.want {
			t.Errorf("Holdings(%d, %d) = %q, want %q", tc.blocks, tc.people, got, tc.want)
		}
	}
}
