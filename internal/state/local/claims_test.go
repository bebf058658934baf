package local

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// TestReleaseTriedAgainGivesTheClaimBack: a release without an
// enrichment puts back what the key held before the claim (here another
// workspace's claim that ended, which a holder opened before must still
// see), also when its first write of the claims file failed and it is
// tried again (run's claimsAdapter retries it). The holder forgot what
// the key held before the write: tried again, it deleted the entry.
func TestReleaseTriedAgainGivesTheClaimBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.json")
	set := NewWorkspaces(path, nil)
	for _, name := range []string{"dach", "uk"} {
		if err := set.CreateWorkspace(name); err != nil {
			t.Fatal(err)
		}
	}
	holder := func(name string) backend.Claims {
		ws, err := set.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ws.Claims("acct")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dach, uk := holder("dach"), holder("uk")
	keys := []string{"n:1"}
	if got, err := uk.Claim(keys); err != nil || !got.Held {
		t.Fatalf("uk's claim: %+v, %v", got, err)
	}
	if err := uk.Close(); err != nil {
		t.Fatal(err)
	}
	before := claimsOf(t, path)
	for _, k := range backend.ClaimKeys("acct", keys) {
		if e := before[k]; e.Workspace != "uk" || e.State != claimEnded {
			t.Fatalf("%s after uk's apply ended: %+v, want its claim ended", k, e)
		}
	}
	if got, err := dach.Claim(keys); err != nil || !got.Held || got.Since != "uk" {
		t.Fatalf("dach's claim after uk's ended: %+v, %v", got, err)
	}
	write := writeClaims
	defer func() { writeClaims = write }()
	errFull := errors.New("no space left on device")
	writeClaims = func(string, []byte) error { return errFull }
	if err := dach.Release(keys, false); !errors.Is(err, errFull) {
		t.Fatalf("a release whose write fails: %v", err)
	}
	writeClaims = write
	if err := dach.Release(keys, false); err != nil {
		t.Fatal(err)
	}
	after := claimsOf(t, path)
	for _, k := range backend.ClaimKeys("acct", keys) {
		if before[k] != after[k] {
			t.Errorf("%s after the release tried again: %+v, want what it held before the claim, %+v", k, after[k], before[k])
		}
	}
}

// claimsOf reads the claims of the working copy of the state at path.
func claimsOf(t *testing.T, path string) map[string]claimEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(path), ClaimsDir, ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	var d claimsData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d.Claims
}
