package arguments

import (
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox/knobs"
)

func TestParseSandbox(t *testing.T) {
	def := &Sandbox{Addr: "127.0.0.1:8787", Key: knobs.DefaultKey, People: knobs.DefaultPeople, Rate: 1,
		SearchLatency: [2]time.Duration{50 * time.Millisecond, 300 * time.Millisecond}, ReadLatency: [2]time.Duration{-1, -1},
		Credits: knobs.DefaultCredits, Quota: knobs.DefaultQuota}
	with := func(change func(*Sandbox)) *Sandbox {
		c := *def
		change(&c)
		return &c
	}
	checkParse(t, (*SandboxFlags).Register, ParseSandbox, []parseCase[*Sandbox]{
		{line: nil, want: def},
		{line: []string{"--addr", "127.0.0.1:1", "--key", "k", "--people", "10", "--rate", "2", "--credits", "5", "--quota", "6",
			"--latency", "2s-10s", "--read-latency", "0", "--faults", "storm=2", "--seed", "3", "--quiet"},
			want: &Sandbox{Addr: "127.0.0.1:1", Key: "k", People: 10, Rate: 2, Credits: 5, Quota: 6, Seed: 3, Quiet: true,
				SearchLatency: [2]time.Duration{2 * time.Second, 10 * time.Second}, ReadLatency: [2]time.Duration{-1, -1},
				Faults: knobs.Faults{Storm429: 2}}},
		{line: []string{"--addr", "0.0.0.0:8787", "--allow-remote"}, want: with(func(s *Sandbox) { s.Addr, s.AllowRemote = "0.0.0.0:8787", true })},
		{line: []string{"--rate", "-1"}, want: with(func(s *Sandbox) { s.Rate = -1 })},
		{line: []string{"--private-positions"}, want: with(func(s *Sandbox) { s.PrivatePositions = true })},
		{line: []string{"--addr", "0.0.0.0:8787"}, err: `--addr "0.0.0.0:8787": 0.0.0.0 is not a loopback address; the sandbox accepts a well-known key, so it listens on 127.0.0.1, [::1] or localhost unless you add --allow-remote`},
		{line: []string{"--faults", "drop=7"}, err: "--faults: fault share drop=7: want a fraction between 0 and 1"},
		{line: []string{"--latency", "slow"}, err: `--latency: "slow": want MIN-MAX or one duration, e.g. 2s-10s or 200ms`},
		{line: []string{"--read-latency", "3s-1s"}, err: `--read-latency: "3s-1s": want 0 <= MIN <= MAX`},
		{line: []string{"--people", "0"}, err: "--people 0: want a positive number of members"},
		{line: []string{"--credits", "-1"}, err: "--credits -1: want 0 or more"},
		{line: []string{"--quota", "-1"}, err: "--quota -1: want 0 or more"},
		{line: []string{"--rate", "0"}, err: "--rate 0: want calls per second above 0, or a negative value for no limit"},
		{line: []string{"--key", " "}, err: "--key: want a non-empty key"},
		{line: []string{"--drift", "0.15", "--epoch", "2"}, want: with(func(s *Sandbox) { s.Drift, s.Epoch = 0.15, 2 })},
		{line: []string{"--drift", "1.5"}, err: "--drift 1.5: want a share of members between 0 and 1, e.g. 0.15"},
		{line: []string{"--drift", "0.1", "--epoch", "-1"}, err: "--epoch -1: want 0 to 1000"},
		{line: []string{"now"}, err: `leadsync sandbox takes no arguments, got "now"`, usage: true},
	})
}

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
		got, err := parseLatency(c.in)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) || got != c.want {
			t.Errorf("parseLatency(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// FuzzParseSandbox: any --addr, --latency and --faults give a Sandbox or
// one error, never a panic; what is accepted is what the sandbox accepts
// (a loopback address, latencies in order, faults that validate).
func FuzzParseSandbox(f *testing.F) {
	for _, seed := range [][3]string{
		{"127.0.0.1:8787", "50ms-300ms", ""},
		{"[::1]:0", "0", "500=0.05,drop=0.01,slowby=40s"},
		{"localhost:1", "2s", "retry-after=Wed, 21 Oct 2026 07:28:00 GMT,storm=2"},
		{":8787", "10s-2s", "bad=0.2,bad-kind=other-person,quota-429=true"},
		{"0.0.0.0:80", "-", "=,,=,"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, addr, latency, faults string) {
		fl := SandboxFlags{Addr: addr, Latency: latency, ReadLatency: "0", Faults: faults, Key: "k", People: 1, Rate: 1}
		s, err := ParseSandbox(fl, nil)
		if err != nil {
			if s != nil || err.Error() == "" {
				t.Fatalf("error %q with %+v", err, s)
			}
			return
		}
		if err := checkSandboxAddr(s.Addr, false); err != nil {
			t.Errorf("accepted %q: %v", s.Addr, err)
		}
		if l := s.SearchLatency; l[0] > l[1] || (l[1] < 0 && l != [2]time.Duration{-1, -1}) {
			t.Errorf("latency %q gave %v", latency, l)
		}
		if err := s.Faults.Validate(); err != nil {
			t.Errorf("faults %q gave %+v: %v", faults, s.Faults, err)
		}
		if (s.Faults.BadShare > 0) != (s.Faults.Bad != knobs.BadNone) {
			t.Errorf("faults %q: a bad share without a kind, or the other way: %+v", faults, s.Faults)
		}
	})
}
