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
	"reflect"
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

func TestCheckSandboxAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		want   string // part of the error; "" for none
	}{
		{"127.0.0.1:8787", false, ""},
		{"127.1.2.3:0", false, ""},
		{"localhost:8787", false, ""},
		{"[::1]:8787", false, ""},
		{"0.0.0.0:8787", false, "0.0.0.0 is not a loopback address"},
		{":8787", false, "every interface"},
		{"192.168.1.5:8787", false, "--allow-remote"},
		{"192.168.1.5:8787", true, ""},
		{"example.com:80", false, "not a loopback"},
		{"127.0.0.1", false, "want HOST:PORT"},
		{"127.0.0.1:http", false, "port \"http\" is not a number"},
		{"127.0.0.1:70000", false, "is not a number from 0 to 65535"},
	} {
		err := checkSandboxAddr(c.addr, c.remote)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkSandboxAddr(%q, %v) = %v, want %q", c.addr, c.remote, err, c.want)
		}
	}
}

func TestParseSandboxLatency(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		in   string
		want [2]time.Duration
		err  string
	}{
		{"2s-10s", [2]time.Duration{2 * s, 10 * s}, ""},
		{" 200ms ", [2]time.Duration{200 * time.Millisecond, 200 * time.Millisecond}, ""},
		{"0", [2]time.Duration{-1, -1}, ""},
		{"0s-0s", [2]time.Duration{-1, -1}, ""},
		{"0-1s", [2]time.Duration{0, s}, ""},
		{"10s-2s", [2]time.Duration{}, "MIN <= MAX"},
		{"fast", [2]time.Duration{}, "want MIN-MAX"},
		{"2-10", [2]time.Duration{}, "want MIN-MAX"},
	} {
		got, err := parseSandboxLatency(c.in)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) || got != c.want {
			t.Errorf("parseSandboxLatency(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseSandboxFaults(t *testing.T) {
	for _, c := range []struct {
		in   string
		want sandbox.Faults
		err  string
	}{
		{"", sandbox.Faults{}, ""},
		{"500=0.05,drop=0.01,truncate=0.02,html=0.01,slow=0.1,slowby=40s",
			sandbox.Faults{Status500: 0.05, Drop: 0.01, Truncate: 0.02, HTML: 0.01, Slow: 0.1, SlowBy: 40 * time.Second}, ""},
		{"storm=3, retry-after=1, revoke-after=100, seed=7, html-status=502",
			sandbox.Faults{Storm429: 3, RetryAfter: "1", RevokeKeyAfter: 100, Seed: 7, HTMLStatus: 502}, ""},
		{"retry-after=Wed, 21 Oct 2026 07:28:00 GMT,storm=2",
			sandbox.Faults{RetryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", Storm429: 2}, ""},
		{"bad=0.2,bad-kind=other-person,quota-429=true",
			sandbox.Faults{BadShare: 0.2, Bad: sandbox.BadOtherPerson, QuotaAs429: true}, ""},
		{"bad-kind={},bad=1", sandbox.Faults{BadShare: 1, Bad: sandbox.BadEmptyObject}, ""},
		{"bad-kind=[null],bad=0.5", sandbox.Faults{BadShare: 0.5, Bad: sandbox.BadNullItem}, ""},
		{"bad=0.2", sandbox.Faults{}, "bad=SHARE and bad-kind=KIND go together"},
		{"bad-kind=null", sandbox.Faults{}, "bad=SHARE and bad-kind=KIND go together"},
		{"bad=0.1,bad-kind=garbage", sandbox.Faults{}, "bad-kind=garbage: want one of"},
		{"quota-429=maybe", sandbox.Faults{}, "quota-429=maybe: want true or false"},
		{"drop=2", sandbox.Faults{}, "drop=2"},
		{"drop=lots", sandbox.Faults{}, "drop=lots: want a share"},
		{"storm=many", sandbox.Faults{}, "storm=many: want a whole number"},
		{"slowby=3", sandbox.Faults{}, "slowby=3: want a duration"},
		{"retry-after=soon", sandbox.Faults{}, "retry-after=soon: want seconds or an HTTP date"},
		{"boom=1", sandbox.Faults{}, `unknown fault "boom"; known: 500, html`},
		{"drop", sandbox.Faults{}, `"drop": want NAME=VALUE`},
	} {
		got, err := parseSandboxFaults(c.in)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("parseSandboxFaults(%q) error %v, want %q", c.in, err, c.err)
			continue
		}
		if err == nil && got != c.want {
			t.Errorf("parseSandboxFaults(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

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

func TestSandboxCommandServesAndStops(t *testing.T) {
	outR, outW := io.Pipe()
	errOut := &lockedBuffer{}
	interrupt := make(chan os.Signal, 1)
	f := &Factory{
		IO:        &IOStreams{In: strings.NewReader(""), Out: outW, ErrOut: errOut},
		Getenv:    func(string) string { return "" },
		Environ:   func() []string { return nil },
		Now:       time.Now,
		Dir:       t.TempDir(),
		Interrupt: interrupt,
	}
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), f, []string{"sandbox", "--addr", "127.0.0.1:0", "--latency", "0", "--people", "300", "--key", "k-123"})
		outW.Close()
	}()

	// Read the banner, then keep draining stdout.
	var banner strings.Builder
	var base string
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		line := sc.Text()
		banner.WriteString(line + "\n")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "base_url    = "); ok {
			base = strings.Trim(strings.Fields(rest)[0], `"`)
		}
		if line == "Press Ctrl-C to stop." {
			break
		}
	}
	go io.Copy(io.Discard, outR)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("no base_url in the banner:\n%s", banner.String())
	}
	for _, want := range []string{"base_url_v2 = \"" + base + "\"", "API key       k-123", "LEADSYNC_API_KEY=k-123", "300 members", "1,000 credits", "10,000 requests left this month"} {
		if !strings.Contains(banner.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, banner.String())
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

func TestSandboxCommandStopsWithContext(t *testing.T) {
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
		{[]string{"--drift", "1.5"}, "--drift 1.5: want a share of members between 0 and 1"},
		{[]string{"--drift", "0.1", "--epoch", "-1"}, "--epoch -1: want 0 to 1000"},
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

func TestSandboxFlagsToOptions(t *testing.T) {
	fl := sandboxFlags{opts: sandboxOptions{Addr: "127.0.0.1:1", Key: "k", People: 10, Rate: 2, Credits: 5, Quota: 6, Drift: 0.15, Epoch: 2},
		latency: "2s-10s", readLatency: "0", faults: "storm=2"}
	got, err := fl.parse()
	if err != nil {
		t.Fatal(err)
	}
	want := sandboxOptions{Addr: "127.0.0.1:1", Key: "k", People: 10, Rate: 2, Credits: 5, Quota: 6, Drift: 0.15, Epoch: 2,
		SearchLatency: [2]time.Duration{2 * time.Second, 10 * time.Second}, ReadLatency: [2]time.Duration{-1, -1},
		Faults: sandbox.Faults{Storm429: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parse() = %+v, want %+v", got, want)
	}
}

func TestSandboxBannerSaysTheDrift(t *testing.T) {
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
