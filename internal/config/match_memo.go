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

// maxWhereMemo is the most values a WhereMemo keeps; when full it starts
// again empty (a variable for tests).
var maxWhereMemo = 1 << 16

// WhereMemo is what a where gave, by the key of the values it reads
// (LeadValuesKey, PersonValuesKey): at most maxWhereMemo of them, all
// forgotten when full. Match, the console's where and a sheet's where
// (export) remember by it. The zero WhereMemo is empty and ready; it is
// not safe for concurrent use.
type WhereMemo[V any] struct {
	m map[string]V
}

// Get is what Put remembered for key, if it still does.
func (w *WhereMemo[V]) Get(key []byte) (V, bool) {
	v, found := w.m[string(key)]
	return v, found
}

// Put remembers v for key, forgetting everything first when full.
func (w *WhereMemo[V]) Put(key []byte, v V) {
	switch {
	case w.m == nil:
		w.m = map[string]V{}
	case len(w.m) >= maxWhereMemo:
		clear(w.m)
	}
	w.m[string(key)] = v
}

// whereMemo is what a narrow where of an enrich block gave, by the
// values it reads (LeadValuesKey). Safe for concurrent use.
type whereMemo struct {
	mu    sync.Mutex
	memo  WhereMemo[whereResult]
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
	return &whereMemo{}
}

// LeadValuesKey appends to buf the key of lead's values of keys: the
// value itself for one key, else each value after its length (no two
// leads' values share it). Match and the console's where on
// lead.<field> remember by it.
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
	return w.memo.Get(key)
}

// put remembers that where gave ok and err for lead's values of keys.
func (w *whereMemo) put(lead *person.Lead, keys []string, ok bool, err error) {
	var arr [128]byte
	key := LeadValuesKey(arr[:0], lead, keys)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.memo.Put(key, whereResult{ok, err})
	w.evals++
}

// PersonValuesKey appends to buf the key of a person's values of fields
// (person.<field> of a sheet's where, as PersonValue takes them): each
// value in its own form (PersonFieldType) after its length, a null as
// "n;", so that no two persons' values share it. A sheet's where
// (export) and the console's where on person.<field> remember by it.
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
