package config

import (
	"strconv"
	"sync"

	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
)

// A where that reads lead only by the names of its fields (narrow) gives
// the same for the same values of those fields: its context (variables,
// locals) is fixed for the configuration, and its functions are pure
// (functions: no clock). Match remembers what it gave, true, false or
// the error, by those values (whereMemo): a plan evaluates where on
// hundreds of thousands of leads, which share few companies or titles.
// Each evaluation builds the lead's object, its type and the context:
// about 2.4 KB of garbage a lead.

// maxWhereMemo is the most values a whereMemo keeps; when full it starts
// again empty (a variable for tests).
var maxWhereMemo = 1 << 16

// whereMemo is what a narrow where gave, by the values it reads
// (LeadValuesKey). Safe for concurrent use.
type whereMemo struct {
	mu    sync.Mutex
	m     map[string]whereResult
	evals int // where evaluations made (tests)
}

type whereResult struct {
	ok  bool
	err error
}

// newWhereMemo is the memo of a where reading keys; nil when it does not
// read lead only by field names.
func newWhereMemo(narrow bool) *whereMemo {
	if !narrow {
		return nil
	}
	return &whereMemo{m: map[string]whereResult{}}
}

// LeadValuesKey appends to buf the key of lead's values of keys: the
// value itself for one key, else each value after its length (no two
// leads' values share it). The console's where remembers by it too.
func LeadValuesKey(buf []byte, lead *person.Lead, keys []string) []byte {
	for _, k := range keys {
		v := leadField(lead, k)
		if len(keys) > 1 {
			buf = strconv.AppendInt(buf, int64(len(v)), 10)
			buf = append(buf, ':')
		}
		buf = append(buf, v...)
	}
	return buf
}

// leadField is the value of lead's field of key k ("" for none: keys come
// from whereLeadKeys, which knows only the lead's fields). A switch, not
// person.LeadFields' accessors: through a func value, lead would escape
// to the heap at each Match (TestLeadFieldReadsEveryField).
func leadField(lead *person.Lead, k string) string {
	switch k {
	case "firstName":
		return lead.FirstName
	case "lastName":
		return lead.LastName
	case "fullName":
		return lead.FullName
	case "title":
		return lead.Title
	case "location":
		return lead.Location
	case "previousTitle":
		return lead.PreviousTitle
	case "company":
		return lead.Company
	case "networkId":
		return lead.NetworkID
	case "pageName":
		return lead.PageName
	}
	return ""
}

// get is what where gave for lead's values of keys, if remembered.
func (w *whereMemo) get(lead *person.Lead, keys []string) (whereResult, bool) {
	var arr [128]byte
	key := LeadValuesKey(arr[:0], lead, keys)
	w.mu.Lock()
	defer w.mu.Unlock()
	r, found := w.m[string(key)]
	return r, found
}

// put remembers that where gave ok and err for lead's values of keys.
func (w *whereMemo) put(lead *person.Lead, keys []string, ok bool, err error) {
	var arr [128]byte
	key := LeadValuesKey(arr[:0], lead, keys)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.m) >= maxWhereMemo {
		clear(w.m)
	}
	w.m[string(key)] = whereResult{ok, err}
	w.evals++
}

// PersonValuesKey appends to buf the key of a person's values of fields
// (person.<field> of a sheet's where, as PersonValue takes them): each
// value in its own form (PersonFieldType) after its length, a null as
// "n;", so that no two persons' values share it. The console's where remembers by it.
func PersonValuesKey(buf []byte, fields []string, vals map[string]cty.Value) []byte {
	for _, f := range fields {
		v := vals[f]
		var text string
		switch {
		case v.IsNull() || !v.IsKnown():
			buf = append(buf, "n;"...) // no length: no text's key
			continue
		case v.Type() == cty.String:
			text = v.AsString()
		case v.Type() == cty.Bool:
			text = strconv.FormatBool(v.True())
		case v.Type() == cty.Number:
			text = v.AsBigFloat().Text('g', -1)
		default:
			text = v.GoString()
		}
		buf = strconv.AppendInt(buf, int64(len(text)), 10)
		buf = append(buf, ':')
		buf = append(buf, text...)
	}
	return buf
}
