package state

import (
	"maps"
	"time"
)

// chargeMonth counts credits charged at in the month of at (UTC).
func (u *Usage) chargeMonth(at time.Time, credits int) {
	if credits == 0 {
		return
	}
	// A new map: copies of the state (pg's rows) share the old one.
	m := maps.Clone(u.CreditsByMonth)
	if m == nil {
		m = map[string]int{}
	}
	m[at.UTC().Format("2006-01")] += credits
	u.CreditsByMonth = m
}
