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
// panics (a bug in an apply's worker); answered lists the searches
// answered.
type panickyResults struct {
	fixedResults
	mu       sync.Mutex
	answered []string
}

func (p *panickyResults) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	kw, _ := req.Params["keywords"].(string)
	if kw == "boom" {
		panic("a bug in a worker")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered = append(p.answered, "search."+kw)
	return p.fixedResults.Search(ctx, gen, req)
}

// TestAPanicInAWorkerIsOneMessage: a panic in one of apply's workers (a
// goroutine of its own) ends the command as a panic of the command does:
// one message naming the crash log, exit 1, no stack trace on the
// screen; the log holds the stack of the worker that panicked; every
// search answered before it is in the state.
func TestAPanicInAWorkerIsOneMessage(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.leads.hcl", "api {\n  sandbox = true\n}\n"+
		"search \"a\" {\n  keywords = \"a\"\n}\nsearch \"b\" {\n  keywords = \"b\"\n}\nsearch \"boom\" {\n  keywords = \"boom\"\n}\n")
	svc := &panickyResults{fixedResults: fixedResults{"a": 3, "b": 2}}
	f, out, errOut := configTestFactory(dir)
	f.CacheDir = t.TempDir()
	f.Service = func(*config.Config) (api.Service, error) { return svc, nil }
	if code := Run(context.Background(), f, []string{"apply", "--auto-approve"}); code != ExitError {
		t.Fatalf("apply: exit %d, want 1:\n%s%s", code, out, errOut)
	}
	screen := out.String() + errOut.String()
	if strings.Count(screen, "leadsync stopped on an internal error: a bug in a worker\n") != 1 ||
		strings.Contains(screen, "goroutine ") || strings.Contains(screen, ".go:") {
		t.Fatalf("want one internal error and no stack trace:\n%s", screen)
	}
	logs, _ := filepath.Glob(filepath.Join(f.CacheDir, "leadsync", "leadsync-crash-*.log"))
	if len(logs) != 1 || !strings.Contains(screen, logs[0]) {
		t.Fatalf("crash logs %v: want one, named:\n%s", logs, screen)
	}
	stack, err := os.ReadFile(logs[0])
	if err != nil || !strings.Contains(string(stack), "(*runner).work") || !strings.Contains(string(stack), "panickyResults).Search") {
		t.Fatalf("crash log (%v): want the stack of the worker that panicked:\n%s", err, stack)
	}
	code, list, listErr := runIn(t, dir, "state", "list")
	var inState []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		if strings.HasPrefix(line, "search.") {
			inState = append(inState, line)
		}
	}
	slices.Sort(inState)
	slices.Sort(svc.answered)
	if code != 0 || len(svc.answered) == 0 || !slices.Equal(inState, svc.answered) {
		t.Fatalf("state list (exit %d, %s): %q; want the searches answered, %q", code, listErr, inState, svc.answered)
	}
}
