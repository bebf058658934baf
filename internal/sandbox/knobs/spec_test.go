package knobs

import (
	"testing"
	"time"
)

// TestParseFaults: each spelling of --faults gives its Faults, or exactly
// its error.
func TestParseFaults(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Faults
		err  string // the whole error; "" for none
	}{
		{"", Faults{}, ""},
		{"500=0.05,drop=0.01,truncate=0.02,html=0.01,slow=0.1,slowby=40s",
			Faults{Status500: 0.05, Drop: 0.01, Truncate: 0.02, HTML: 0.01, Slow: 0.1, SlowBy: 40 * time.Second}, ""},
		{"storm=3, retry-after=1, revoke-after=100, seed=7, html-status=502",
			Faults{Storm429: 3, RetryAfter: "1", RevokeKeyAfter: 100, Seed: 7, HTMLStatus: 502}, ""},
		{"retry-after=Wed, 21 Oct 2026 07:28:00 GMT,storm=2",
			Faults{RetryAfter: "Wed, 21 Oct 2026 07:28:00 GMT", Storm429: 2}, ""},
		{"bad=0.2,bad-kind=other-person,quota-429=true",
			Faults{BadShare: 0.2, Bad: BadOtherPerson, QuotaAs429: true}, ""},
		{"bad-kind={},bad=1", Faults{BadShare: 1, Bad: BadEmptyObject}, ""},
		{"bad-kind=[null],bad=0.5", Faults{BadShare: 0.5, Bad: BadNullItem}, ""},
		{"bad=0.2", Faults{}, "bad=SHARE and bad-kind=KIND go together, e.g. bad=0.2,bad-kind=null"},
		{"bad-kind=null", Faults{}, "bad=SHARE and bad-kind=KIND go together, e.g. bad=0.2,bad-kind=null"},
		{"bad=0.1,bad-kind=garbage", Faults{}, "bad-kind=garbage: want one of empty, null, {}, [null], no-id, other-person"},
		{"quota-429=maybe", Faults{}, "quota-429=maybe: want true or false"},
		{"overfull=true", Faults{Overfull: true}, ""},
		{"drop=2", Faults{}, "fault share drop=2: want a fraction between 0 and 1"},
		{"drop=lots", Faults{}, "drop=lots: want a share between 0 and 1, e.g. 0.05"},
		{"storm=many", Faults{}, "storm=many: want a whole number"},
		{"html-status=x", Faults{}, "html-status=x: want a whole number"},
		{"seed=x", Faults{}, "seed=x: want a whole number"},
		{"slowby=3", Faults{}, "slowby=3: want a duration, e.g. 40s"},
		{"retry-after=soon", Faults{}, "retry-after=soon: want seconds or an HTTP date (Wed, 21 Oct 2026 07:28:00 GMT)"},
		{"boom=1", Faults{}, `unknown fault "boom"; known: 500, html, drop, truncate, slow, slowby, html-status, storm, revoke-after, retry-after, seed, bad, bad-kind, quota-429, overfull`},
		{"drop", Faults{}, `"drop": want NAME=VALUE`},
	} {
		got, err := ParseFaults(c.in)
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("ParseFaults(%q) error %v, want %q", c.in, err, c.err)
			continue
		}
		if err == nil && got != c.want {
			t.Errorf("ParseFaults(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
