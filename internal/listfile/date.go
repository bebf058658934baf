package listfile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dateLayouts are the textual forms of a date (and time) ParseDate reads:
// ISO 8601 in its common shapes, and the day-first form with dots of
// German-speaking countries, which no other convention writes with dots.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"02.01.2006 15:04:05",
	"02.01.2006 15:04",
	"02.01.2006",
	"2.1.2006",
}

// ParseDate reads a date cell: an ISO 8601 date or time (2026-10-15,
// 2026-10-15T09:30:00Z, 2026-10-15 09:30), a day-first date with dots
// (15.10.2026), or, in a workbook, a date cell (stored as a serial day
// number). Slashed dates with the year last are read only when they can be
// read one way: 15/10/2026 is the 15th of October, 10/15/2026 too, but
// 03/04/2026 could be March or April and is an error asking for
// YYYY-MM-DD. A date without a zone is UTC.
func (t *Table) ParseDate(v string) (time.Time, error) {
	s := strings.TrimSpace(v)
	if d, ok := isoDay(s); ok {
		return d, nil
	}
	for _, l := range dateLayouts {
		if !sameShape(l, s) {
			continue
		}
		if d, err := time.Parse(l, s); err == nil {
			return d.UTC(), nil
		}
	}
	if t.Format == XLSX {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 1 && f < 2958466 {
			return excelDate(f, t.Date1904), nil
		}
	}
	if d, ok, ambiguous := slashDate(s); ok {
		return d, nil
	} else if ambiguous {
		return time.Time{}, fmt.Errorf("the date %q could be read day first or month first; write it as YYYY-MM-DD", v)
	}
	return time.Time{}, fmt.Errorf("expected a date such as 2026-10-15 (or 2026-10-15T09:30:00Z, or 15.10.2026), got %q", v)
}

// isoDay reads the commonest form, YYYY-MM-DD, without time.Parse's
// errors for the layouts it is not.
func isoDay(s string) (time.Time, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return -1
			}
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	y, m, d := num(s[:4]), num(s[5:7]), num(s[8:])
	if y < 0 || m < 1 || m > 12 || d < 1 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, t.Day() == d
}

// sameShape reports whether s may be written in layout l: the separator
// after the first field is the same (a dash, a slash or a dot), so that
// time.Parse is not tried, and its error built, for layouts s cannot be.
func sameShape(l, s string) bool {
	sep := func(x string) byte {
		for i := 0; i < len(x); i++ {
			if c := x[i]; c < '0' || c > '9' {
				return c
			}
		}
		return 0
	}
	return sep(l) == sep(s)
}

// slashDate reads A/B/YYYY (optionally with a time after a space) when
// only one of day/month/year and month/day/year makes a date.
func slashDate(s string) (d time.Time, ok, ambiguous bool) {
	date, clock, _ := strings.Cut(s, " ")
	parts := strings.Split(date, "/")
	if len(parts) != 3 || len(parts[2]) != 4 {
		return time.Time{}, false, false
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	y, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return time.Time{}, false, false
	}
	var hh, mm int
	if clock != "" {
		c, err := time.Parse("15:04", clock)
		if err != nil {
			return time.Time{}, false, false
		}
		hh, mm = c.Hour(), c.Minute()
	}
	mk := func(day, month int) (time.Time, bool) {
		t := time.Date(y, time.Month(month), day, hh, mm, 0, 0, time.UTC)
		return t, month >= 1 && month <= 12 && t.Day() == day
	}
	dm, okDM := mk(a, b)
	md, okMD := mk(b, a)
	switch {
	case okDM && okMD && a != b:
		return time.Time{}, false, true
	case okDM:
		return dm, true, false
	case okMD:
		return md, true, false
	}
	return time.Time{}, false, false
}
