package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// lockedBuffer is a buffer written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sandboxFactory is a Factory for the sandbox command writing to out
// and errOut, stopped by an interrupt on the channel returned.
func sandboxFactory(t *testing.T, out, errOut io.Writer) (*Factory, chan<- os.Signal) {
	interrupt := make(chan os.Signal, 1)
	return &Factory{
		IO:        &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut},
		Getenv:    func(string) string { return "" },
		Environ:   func() []string { return nil },
		Now:       time.Now,
		Dir:       t.TempDir(),
		Interrupt: interrupt,
	}, interrupt
}

// serveSandbox runs leadsync sandbox with args in the background, its
// stdout written to outW and read from outR, and returns the base URL
// of its banner, the banner, and its exit code to come.
func serveSandbox(t *testing.T, f *Factory, outR *io.PipeReader, outW *io.PipeWriter, args ...string) (base, banner string, done <-chan int) {
	t.Helper()
	code := make(chan int, 1)
	go func() {
		code <- Run(context.Background(), f, append([]string{"sandbox", "--addr", "127.0.0.1:0", "--latency", "0"}, args...))
		outW.Close()
	}()
	// Read the banner, then keep draining stdout.
	var b strings.Builder
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line + "\n")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "base_url    = "); ok {
			base = strings.Trim(strings.Fields(rest)[0], `"`)
		}
		if line == "Press Ctrl-C to stop." {
			break
		}
	}
	go io.Copy(io.Discard, outR)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("no base_url in the banner:\n%s", b.String())
	}
	return base, b.String(), code
}

func TestSandboxCommandServesAndStops(t *testing.T) {
	t.Parallel()
	outR, outW := io.Pipe()
	errOut := &lockedBuffer{}
	f, interrupt := sandboxFactory(t, outW, errOut)
	base, banner, done := serveSandbox(t, f, outR, outW, "--people", "300", "--key", "k-123")
	for _, want := range []string{"base_url_v2 = \"" + base + "\"", "API key       k-123", "LEADSYNC_API_KEY=k-123", "300 members", "1,000 credits", "10,000 requests left this month"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}

	get := func(key, path string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	status, body := get("k-123", "/v1/billing")
	var u api.Usage
	if status != 200 || json.Unmarshal(body, &u) != nil || u.InvoicingStartDate != sandbox.InvoicingStartDate {
		t.Errorf("billing: %d %s", status, body)
	}
	if status, _ := get("wrong", "/v1/scrap/fields"); status != http.StatusForbidden {
		t.Errorf("wrong key: %d", status)
	}

	interrupt <- os.Interrupt
	if code := <-done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	log := errOut.String()
	for _, want := range []string{"GET  /v1/billing", " 200 ", " 403 ", "sandbox stopped: 2 calls (1 accepted, 0 rate limited, 1 forbidden)"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
}

// TestAPanicOfTheSandboxIsOneLine: a call whose handler panics (a bug)
// is answered 500, and stderr says so in one line naming the crash log,
// with no stack trace; the sandbox serves on.
func TestAPanicOfTheSandboxIsOneLine(t *testing.T) {
	t.Parallel()
	outR, outW := io.Pipe()
	errOut := &lockedBuffer{}
	f, interrupt := sandboxFactory(t, outW, errOut)
	f.CacheDir = t.TempDir()
	var broken sync.Once
	bug := make(chan struct{})
	f.Now = func() time.Time {
		select {
		case <-bug:
			broken.Do(func() { panic("a bug in the sandbox") })
		default:
		}
		return time.Now()
	}
	base, _, done := serveSandbox(t, f, outR, outW, "--quiet")
	close(bug)
	for i, want := range []int{http.StatusInternalServerError, http.StatusOK} {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/billing", nil)
		req.Header.Set("X-Api-Key", sandbox.DefaultKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("call %d: %v %v, want %d", i+1, resp, err, want)
		}
		resp.Body.Close()
	}
	interrupt <- os.Interrupt
	if code := <-done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	screen := errOut.String()
	if !strings.Contains(screen, "sandbox: an internal error answering GET /v1/billing: a bug in the sandbox.") ||
		strings.Contains(screen, "goroutine ") || strings.Contains(screen, ".go:") {
		t.Fatalf("want one line of the internal error and no stack trace:\n%s", screen)
	}
	checkCrashLog(t, f, screen, "sandbox.(*Server).handle")
}

func TestSandboxCommandStopsWithContext(t *testing.T) {
	t.Parallel()
	streams, _, out, errOut := TestStreams()
	f := &Factory{IO: streams, Getenv: func(string) string { return "" }, Now: time.Now, Dir: t.TempDir(),
		Interrupt: make(chan os.Signal)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already over: the command starts, prints, and stops at once
	if code := Run(ctx, f, []string{"sandbox", "--addr", "localhost:0", "--quiet"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "Press Ctrl-C to stop.") || !strings.Contains(errOut.String(), "sandbox stopped: 0 calls") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestSandboxCommandRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:8787"}, "is not a loopback address"},
		{[]string{"--faults", "drop=7"}, "--faults: fault share drop=7"},
		{[]string{"--latency", "slow"}, "--latency: \"slow\""},
		{[]string{"--people", "0"}, "--people 0"},
		{[]string{"--rate", "0"}, "--rate 0"},
		{[]string{"--key", ""}, "--key"},
	} {
		streams, _, _, errOut := TestStreams()
		f := &Factory{IO: streams, Getenv: func(string) string { return "" }, Now: time.Now, Dir: t.TempDir()}
		code := Run(context.Background(), f, append([]string{"sandbox"}, c.args...))
		if code != ExitError || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errOut, c.want)
		}
		if lines := strings.Count(strings.TrimSpace(errOut.String()), "\n"); lines != 0 {
			t.Errorf("%v: want one error line, got:\n%s", c.args, errOut)
		}
	}
}

func TestSandboxPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	streams, _, _, errOut := TestStreams()
	f := &Factory{IO: streams, Getenv: func(string) string { return "" }, Now: time.Now, Dir: t.TempDir()}
	code := Run(context.Background(), f, []string{"sandbox", "--quiet", "--addr", ln.Addr().String()})
	if code != ExitError || !strings.Contains(errOut.String(), "--addr 127.0.0.1:0 picks a free one") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestSandboxBannerSaysTheDrift(t *testing.T) {
	t.Parallel()
	streams, _, out, errOut := TestStreams()
	f := &Factory{IO: streams, Getenv: func(string) string { return "" }, Now: time.Now, Dir: t.TempDir(),
		Interrupt: make(chan os.Signal)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := Run(ctx, f, []string{"sandbox", "--addr", "localhost:0", "--quiet", "--people", "2000", "--drift", "0.15", "--epoch", "2"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := sandbox.New(sandbox.Options{People: 2000, Drift: 0.15, Epoch: 2})
	want := fmt.Sprintf("%s members (seed 0, drift 0.15 at epoch 2: %s changes)", textfmt.Thousands(len(s.Population())), textfmt.Thousands(len(s.Changes())))
	if !strings.Contains(out.String(), want) {
		t.Errorf("banner lacks %q:\n%s", want, out)
	}
}

func TestSandboxDriftEnv(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		drift, epoch string
		want         [2]float64
		err          string
	}{
		{"", "", [2]float64{0, 0}, ""},
		{"0.15", "2", [2]float64{0.15, 2}, ""},
		{" 1 ", "0", [2]float64{1, 0}, ""},
		{"lots", "2", [2]float64{}, "LEADSYNC_SANDBOX_DRIFT=lots: want a share"},
		{"0.1", "two", [2]float64{}, "LEADSYNC_SANDBOX_EPOCH=two: want a whole number"},
		{"2", "1", [2]float64{}, "drift 2: want a share of members between 0 and 1"},
		{"0.1", "-3", [2]float64{}, "epoch -3: want 0 to 1000"},
	} {
		env := map[string]string{"LEADSYNC_SANDBOX_DRIFT": c.drift, "LEADSYNC_SANDBOX_EPOCH": c.epoch}
		d, e, err := sandboxDriftEnv(func(k string) string { return env[k] })
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q %q: error %v, want %q", c.drift, c.epoch, err, c.err)
		case c.err == "" && (err != nil || d != c.want[0] || float64(e) != c.want[1]):
			t.Errorf("%q %q: %v %d %v, want %v", c.drift, c.epoch, d, e, err, c.want)
		}
	}
}

// TestInProcessSandboxDrifts: api { sandbox = true } builds its sandbox at
// the epoch of LEADSYNC_SANDBOX_EPOCH, so that a member who changed jobs
// shows the new one to the client.
func TestInProcessSandboxDrifts(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LEADSYNC_SANDBOX_DRIFT": "0.2", "LEADSYNC_SANDBOX_EPOCH": "1"}
	streams, _, _, _ := TestStreams()
	f := &Factory{IO: streams, Getenv: func(k string) string { return env[k] }, Now: time.Now, Dir: t.TempDir()}
	cfg := &config.Config{API: config.API{Sandbox: true, RateLimit: -1, Parallelism: 1, Timeout: time.Minute}}
	c, err := newServiceClient(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	truth := sandbox.New(sandbox.Options{Drift: 0.2, Epoch: 1})
	var job *sandbox.Change
	for _, ch := range truth.Changes() {
		if ch.Kind == sandbox.DriftJob && slices.Contains(ch.Fields(), "company") {
			job = &ch
			break
		}
	}
	if job == nil {
		t.Fatal("nobody changed company at epoch 1")
	}
	p, err := c.Page(context.Background(), api.Gen1, api.PageRequest{PageName: job.PageName})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.CurrentPosition) != 1 || p.CurrentPosition[0].Company != job.After.Company {
		t.Errorf("%s: current position %+v, want at %q (was %q)", job.PageName, p.CurrentPosition, job.After.Company, job.Before.Company)
	}

	env["LEADSYNC_SANDBOX_EPOCH"] = "soon"
	if _, err := newServiceClient(f, cfg); err == nil || !strings.Contains(err.Error(), "LEADSYNC_SANDBOX_EPOCH=soon") {
		t.Errorf("a bad epoch: %v", err)
	}
}
