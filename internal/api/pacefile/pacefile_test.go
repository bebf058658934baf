package pacefile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestPaceFileReserve(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	const key = "secret-key-123"
	p := New(dir, key)
	gap := time.Second
	if w, err := p.Reserve(t0, gap); err != nil || w != 0 {
		t.Fatalf("first call: wait %s, %v", w, err)
	}
	// Another process of the same key, 300 ms later, waits for the rest.
	other := New(dir, key)
	if w, err := other.Reserve(t0.Add(300*time.Millisecond), gap); err != nil || w != 700*time.Millisecond {
		t.Fatalf("second call 300ms later: wait %s, %v; want 700ms", w, err)
	}
	if w, _ := other.Reserve(t0.Add(gap), gap); w != 0 {
		t.Fatalf("a call one gap later waits %s", w)
	}
	// A request that reached the wire late moves the mark.
	if err := p.Extend(t0.Add(gap + 200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if w, _ := p.Reserve(t0.Add(2*gap), gap); w != 200*time.Millisecond {
		t.Fatalf("after a late send: wait %s, want 200ms", w)
	}
	// Another key has a pace of its own.
	if w, _ := New(dir, "another-key").Reserve(t0.Add(2*gap), gap); w != 0 {
		t.Fatalf("another key waits %s", w)
	}

	b, err := os.ReadFile(p.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), key) {
		t.Fatalf("the pace file holds the key: %s", b)
	}
	if fi, err := os.Stat(p.Path()); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("pace file mode %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
		t.Errorf("the folder has no .gitignore: %v", err)
	}
}

func TestPaceFileDamagedReadsAsNone(t *testing.T) {
	dir := t.TempDir()
	p := New(dir, "k")
	if err := os.WriteFile(p.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w, err := p.Reserve(t0, time.Second); err != nil || w != 0 {
		t.Fatalf("damaged file: wait %s, %v", w, err)
	}
	if last, _ := p.Last(); !last.Equal(t0) {
		t.Fatalf("last %s, want %s", last, t0)
	}
}

// TestPaceFileOneStartPerGap: processes (here goroutines with their own
// file handles) racing for the same instant get one start between them.
func TestPaceFileOneStartPerGap(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	starts := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := New(dir, "k").Reserve(t0, time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			if w == 0 {
				mu.Lock()
				starts++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if starts != 1 {
		t.Fatalf("%d starts at one instant, want 1", starts)
	}
}
