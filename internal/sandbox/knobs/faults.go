package knobs

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Faults are injected failures. Shares are fractions of calls in [0, 1];
// which call gets which fault is fixed by Seed and the call's sequence
// number, so a run is reproducible when calls arrive in the same order.
// Status500, HTML, Drop and Truncate exclude one another (their shares add
// up, capped at 1); Slow can come on top of any of them.
type Faults struct {
	// Status500 is the share of calls answered 500 without doing any work.
	Status500 float64
	// Drop is the share of calls where the server does the work (spends
	// quota and credits) and then drops the connection without an answer.
	Drop float64
	// Slow is the share of calls delayed by SlowBy on top of the latency.
	Slow float64
	// SlowBy is the extra delay of a slow call; 0 means DefaultSlowBy.
	SlowBy time.Duration
	// Truncate is the share of calls that do the work and answer 200 with a
	// JSON body cut in the middle (Content-Length matches the cut body).
	Truncate float64
	// HTML is the share of calls answered by an HTML error page, as a proxy
	// in front of the service would, without doing any work; the status is
	// HTMLStatus.
	HTML float64
	// HTMLStatus is the status of an HTML answer; 0 means 200, the nastiest
	// case: only the content type and body tell it from a real answer.
	HTMLStatus int
	// Storm429 makes the next N calls (counted from SetFaults) get 429.
	Storm429 int
	// RetryAfter is sent as the Retry-After header of every 429: "" sends
	// none, else the value as is ("1", or an HTTP date).
	RetryAfter string
	// RevokeKeyAfter answers 403 to every call after the first N accepted
	// ones (counted from SetFaults), as if the key had been revoked; 0 never.
	RevokeKeyAfter int
	// Bad is the kind of bad 200 answer given to a share BadShare of the
	// calls answered 200, after their work was done and paid (the
	// sandbox's bad_answers.go).
	Bad      BadAnswer
	BadShare float64
	// QuotaAs429 answers a used-up monthly quota with 429, "monthly quota
	// exhausted" and a Retry-After of QuotaRetryAfter (0: 30 days), as
	// some deployments do, instead of 403.
	QuotaAs429      bool
	QuotaRetryAfter int
	// Overfull answers a search with every member it matches, past the
	// network's cap of results (api.MaxResults), as a stand-in that was
	// never tuned to the network may: what is kept must still be at most
	// the cap.
	Overfull bool
	// Seed fixes which calls get a fault.
	Seed int64
}

// Validate reports the first out-of-range knob.
func (f Faults) Validate() error {
	for _, s := range []struct {
		name string
		v    float64
	}{{"500", f.Status500}, {"drop", f.Drop}, {"slow", f.Slow}, {"truncate", f.Truncate}, {"html", f.HTML}, {"bad", f.BadShare}} {
		if math.IsNaN(s.v) || s.v < 0 || s.v > 1 {
			return fmt.Errorf("fault share %s=%v: want a fraction between 0 and 1", s.name, s.v)
		}
	}
	switch {
	case f.SlowBy < 0:
		return fmt.Errorf("slowby=%s: want a positive duration", f.SlowBy)
	case f.Storm429 < 0:
		return fmt.Errorf("storm=%d: want a count of calls, 0 or more", f.Storm429)
	case f.RevokeKeyAfter < 0:
		return fmt.Errorf("revoke-after=%d: want a count of calls, 0 or more", f.RevokeKeyAfter)
	case f.HTMLStatus != 0 && (f.HTMLStatus < 100 || f.HTMLStatus > 599):
		return fmt.Errorf("html-status=%d: want an HTTP status", f.HTMLStatus)
	}
	return nil
}

// BadAnswer is a kind of 200 answer that is not the service's answer to the
// call: what a broken deployment, a proxy or a mixed-up cache may return.
// The call's work is done and paid (quota, credits) before the body is
// replaced, as with the real service, so a client that takes it for a
// success loses what it paid for.
type BadAnswer int

// Kinds of bad answers (Faults.Bad).
const (
	// BadNone answers normally.
	BadNone BadAnswer = iota
	// BadEmpty is a 200 with an empty body.
	BadEmpty
	// BadNull is a 200 whose body is the JSON null.
	BadNull
	// BadEmptyObject is a 200 whose body is {}.
	BadEmptyObject
	// BadNullItem is a 200 whose body is [null].
	BadNullItem
	// BadNoID removes networkId and pageName from the answer (each lead of
	// a search, the enriched profile); other answers are left alone.
	BadNoID
	// BadOtherPerson answers a profile read or an enrichment with the data
	// of another member than the one asked for; searches are left alone.
	BadOtherPerson
)

func (b BadAnswer) String() string {
	switch b {
	case BadNone:
		return "none"
	case BadEmpty:
		return "empty"
	case BadNull:
		return "null"
	case BadEmptyObject:
		return "{}"
	case BadNullItem:
		return "[null]"
	case BadNoID:
		return "no-id"
	case BadOtherPerson:
		return "other-person"
	}
	return "BadAnswer(" + strconv.Itoa(int(b)) + ")"
}
