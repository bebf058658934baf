package sqlstate

import (
	"database/sql"
	"strings"
	"sync"
	"time"
)

// A plan reads whole the people it will enrich, many thousands of them in
// pages of state.PeoplePage. What the rows of one store repeat is decoded
// once: the lists of addresses that found them (most people are found by
// one search, so one list is shared by thousands of people) and their
// first and last seen times (a search's people share its run's times).

// maxSharedLists bounds the lists a personDecoder keeps.
const maxSharedLists = 1 << 16

// personDecoder decodes the people of the rows of one store, one read
// after another (peopleStore holds one; a whole read uses its own).
type personDecoder struct {
	mu          sync.Mutex // held by a read while it decodes its rows
	lists       lists      // by the list's text as the row gives it
	first, last timeMemo
	// addrs are the names of the numbered addresses (addrs.go): nil on
	// an engine that keeps found_by as texts.
	addrs *addressNames
}

func newPersonDecoder() *personDecoder { return &personDecoder{lists: lists{}} }

// foundBy is the list of the column text v, packed when the text is as a
// packed row holds it (JSON-escaped when escaped): a list read before is
// given again, unescaped and split only when new.
func (d *personDecoder) foundBy(v sql.NullString, packed, escaped bool) ([]string, error) {
	if !v.Valid {
		return nil, nil
	}
	if shared, ok := d.lists[v.String]; ok {
		return shared, nil
	}
	text := v.String
	if packed && escaped {
		var err error
		if text, err = unescapePacked(text); err != nil {
			return nil, err
		}
	}
	var out []string
	var err error
	if d.addrs != nil {
		out, err = d.numberedList(text)
	} else {
		out, err = readList(sql.NullString{String: text, Valid: true})
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 1 && len(d.lists) < maxSharedLists {
		// The key is a copy: v is a part of the row, not to be kept.
		d.lists[strings.Clone(v.String)] = out
	}
	return out, nil
}

// timeMemo is the last time text parsed and its time.
type timeMemo struct {
	text string
	t    time.Time
	set  bool
}

// parse is parseTime(v), the time parsed last when v is its text again.
func (m *timeMemo) parse(v sql.NullString) (time.Time, error) {
	if !v.Valid {
		return time.Time{}, nil
	}
	if m.set && v.String == m.text {
		return m.t, nil
	}
	t, err := parseTime(v)
	if err != nil {
		return t, err
	}
	m.text, m.t, m.set = strings.Clone(v.String), t, true
	return t, nil
}
