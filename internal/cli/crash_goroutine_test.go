package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
)

// panickyResults is fixedResults whose search of the keywords "boom"
// panics (a bug in an apply's worker); the other searches are answered
// only once it is about to (boom closed): they are in flight as it
// panics. answered lists the searches answered.
type panickyResults struct {
	fixedResults
	boom     chan struct{}
	mu       sync.Mutex
	answered []string
}

func (p *panickyResults) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	kw, _ := req.Params["keywords"].(string)
	if kw == "boom" {
		close(p.boom)
		panic("a bug in a worker")
	}
	<-p.boom
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered = append(p.answered, "search."+kw)
	return p.fixedResults.Search(ctx, gen, req)
}

// TestAPanicInAWorkerIsOneMessage: a panic in one of apply's workers (a
// goroutine of its own) ends the command as a panic of the command does:
// one message naming the crash log, the panic's value shown once (in
// it), exit 1, no stack trace on the screen; the log holds the stack of
// the worker that panicked; every search in flight as it panicked is
// answered and in the state. With --json too.
func TestAPanicInAWorkerIsOneMessage(t *testing.T) {
	for _, args := range [][]string{{"apply", "--auto-approve"}, {"apply", "--auto-approve", "--json"}} {
		dir := t.TempDir()
		write(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\n"+
			"search \"a\" {\n  keywords = \"a\"\n}\nsearch \"b\" {\n  keywords = \"b\"\n}\nsearch \"boom\" {\n  keywords = \"boom\"\n}\n")
		svc := &panickyResults{fixedResults: fixedResults{"a": 3, "b": 2}, boom: make(chan struct{})}
		f, out, errOut := configTestFactory(dir)
		f.CacheDir = t.TempDir()
		f.Service = func(*config.Config) (api.Service, error) { return svc, nil }
		if code := Run(context.Background(), f, args); code != ExitError {
			t.Fatalf("%v: exit %d, want 1:\n%s%s", args, code, out, errOut)
		}
		screen := out.String() + errOut.String()
		if !strings.Contains(screen, "leadsync stopped on an internal error: a bug in a worker\n") || strings.Count(screen, "a bug in a worker") != 1 ||
			strings.Contains(screen, "goroutine ") || strings.Contains(screen, ".go:") {
			t.Fatalf("%v: want one internal error, the value once, and no stack trace:\n%s", args, screen)
		}
		checkCrashLog(t, f, screen, "(*runner).work", "panickyResults).Search")
		checkStateHolds(t, dir, svc.answered)
	}
}

// checkCrashLog checks that one crash log was written, named on screen,
// holding each of frames (the stack of the goroutine that panicked).
func checkCrashLog(t *testing.T, f *Factory, screen string, frames ...string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(f.CacheDir, "leadsync", "leadsync-crash-*.log"))
	if len(logs) != 1 || !strings.Contains(screen, logs[0]) {
		t.Fatalf("crash logs %v: want one, named:\n%s", logs, screen)
	}
	stack, err := os.ReadFile(logs[0])
	for _, frame := range frames {
		if err != nil || !strings.Contains(string(stack), frame) {
			t.Fatalf("crash log (%v): want the stack of the goroutine that panicked, %s:\n%s", err, frame, stack)
		}
	}
}

// checkStateHolds checks that the searches of dir's state are answered,
// and that there are some.
func checkStateHolds(t *testing.T, dir string, answered []string) {
	t.Helper()
	code, list, listErr := runIn(t, dir, "state", "list")
	var inState []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if strings.HasPrefix(line, "search.") {
			inState = append(inState, line)
		}
	}
	slices.Sort(inState)
	slices.Sort(answered)
	if code != 0 || len(answered) == 0 || !slices.Equal(inState, answered) {
		t.Fatalf("state list (exit %d, %s): %q; want the searches answered, %q", code, listErr, inState, answered)
	}
}
