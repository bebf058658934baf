package knobs

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// faultSetters read the value of each fault NAME of --faults into
// Faults: one row a fault.
var faultSetters = []struct {
	name string
	set  func(f *Faults, val string) error
}{
	{"500", share(func(f *Faults) *float64 { return &f.Status500 })},
	{"html", share(func(f *Faults) *float64 { return &f.HTML })},
	{"drop", share(func(f *Faults) *float64 { return &f.Drop })},
	{"truncate", share(func(f *Faults) *float64 { return &f.Truncate })},
	{"slow", share(func(f *Faults) *float64 { return &f.Slow })},
	{"slowby", func(f *Faults, val string) (err error) {
		if f.SlowBy, err = time.ParseDuration(val); err != nil {
			return fmt.Errorf("slowby=%s: want a duration, e.g. 40s", val)
		}
		return nil
	}},
	{"html-status", count("html-status", func(f *Faults) *int { return &f.HTMLStatus })},
	{"storm", count("storm", func(f *Faults) *int { return &f.Storm429 })},
	{"revoke-after", count("revoke-after", func(f *Faults) *int { return &f.RevokeKeyAfter })},
	{"retry-after", func(f *Faults, val string) error {
		f.RetryAfter = val
		if _, err := strconv.Atoi(val); err == nil {
			return nil
		}
		if _, err := http.ParseTime(val); err != nil {
			return fmt.Errorf("retry-after=%s: want seconds or an HTTP date (Wed, 21 Oct 2026 07:28:00 GMT)", val)
		}
		return nil
	}},
	{"seed", func(f *Faults, val string) (err error) {
		if f.Seed, err = strconv.ParseInt(val, 10, 64); err != nil {
			return fmt.Errorf("seed=%s: want a whole number", val)
		}
		return nil
	}},
	{"bad", share(func(f *Faults) *float64 { return &f.BadShare })},
	{"bad-kind", func(f *Faults, val string) error {
		for b := BadEmpty; b <= BadOtherPerson; b++ {
			if val == b.String() {
				f.Bad = b
				return nil
			}
		}
		return fmt.Errorf("bad-kind=%s: want one of empty, null, {}, [null], no-id, other-person", val)
	}},
	{"quota-429", func(f *Faults, val string) (err error) {
		if f.QuotaAs429, err = strconv.ParseBool(val); err != nil {
			return fmt.Errorf("quota-429=%s: want true or false", val)
		}
		return nil
	}},
	{"overfull", func(f *Faults, val string) (err error) {
		if f.Overfull, err = strconv.ParseBool(val); err != nil {
			return fmt.Errorf("overfull=%s: want true or false", val)
		}
		return nil
	}},
}

// share is the setter of a fault whose value is a share of the calls.
func share(field func(*Faults) *float64) func(*Faults, string) error {
	return func(f *Faults, val string) error {
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("want a share between 0 and 1, e.g. 0.05")
		}
		*field(f) = v
		return nil
	}
}

// count is the setter of the fault name whose value is a whole number.
func count(name string, field func(*Faults) *int) func(*Faults, string) error {
	return func(f *Faults, val string) error {
		v, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("%s=%s: want a whole number", name, val)
		}
		*field(f) = v
		return nil
	}
}

// ParseFaults reads the faults of `leadsync sandbox --faults`, "NAME=VALUE,...",
// and checks them as the sandbox does (Faults.Validate). A part without "=" continues the
// previous value, so that an HTTP date (which has a comma) can follow
// retry-after.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	for _, p := range faultParts(s) {
		name, val, ok := strings.Cut(p, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return f, fmt.Errorf("%q: want NAME=VALUE", p)
		}
		if err := setFault(&f, name, val); err != nil {
			return f, err
		}
	}
	if (f.BadShare > 0) != (f.Bad != BadNone) {
		return f, errors.New("bad=SHARE and bad-kind=KIND go together, e.g. bad=0.2,bad-kind=null")
	}
	return f, f.Validate()
}

// faultParts splits --faults at its commas, keeping a comma inside a
// value (an HTTP date) with the value.
func faultParts(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if !strings.Contains(p, "=") && len(parts) > 0 {
			parts[len(parts)-1] += "," + p
			continue
		}
		parts = append(parts, p)
	}
	return parts
}

// setFault sets the fault name to val in f.
func setFault(f *Faults, name, val string) error {
	var known []string
	for _, s := range faultSetters {
		if s.name != name {
			known = append(known, s.name)
			continue
		}
		err := s.set(f, val)
		if err != nil && !strings.HasPrefix(err.Error(), name+"=") {
			err = fmt.Errorf("%s=%s: %w", name, val, err)
		}
		return err
	}
	return fmt.Errorf("unknown fault %q; known: %s", name, strings.Join(known, ", "))
}
