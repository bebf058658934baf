package person

import (
	"reflect"
	"strings"
	"testing"
)

// answers are the structs of the service's answers about a person, with
// the source each one is.
var answers = []struct {
	t    reflect.Type
	from Source
}{
	{reflect.TypeFor[Lead](), FromLead},
	{reflect.TypeFor[EnrichedProfile](), FromEnrichment},
	{reflect.TypeFor[Profile](), FromProfile},
}

// jsonKey is the key encoding/json writes a struct field under.
func jsonKey(f reflect.StructField) string {
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if key == "" {
		key = f.Name
	}
	return key
}

// fieldByKey returns the row of a service key, nil when none.
func fieldByKey(key string) *PersonField {
	for _, f := range PersonFields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// reach returns the pointer f's accessor for source gives into v (a
// pointer to a zero struct of that source), nil when it has none.
func reach(f *PersonField, from Source, v reflect.Value) any {
	switch from {
	case FromLead:
		if f.Lead != nil {
			return f.Lead(v.Interface().(*Lead))
		}
	case FromEnrichment:
		if f.Enriched != nil {
			return f.Enriched(v.Interface().(*EnrichedProfile))
		}
		if f.EnrichedInt != nil {
			return f.EnrichedInt(v.Interface().(*EnrichedProfile))
		}
	case FromProfile:
		if f.Profile != nil {
			return f.Profile(v.Interface().(*Profile))
		}
	}
	return nil
}

// Every field of the service's answers about a person has its row, and a
// row's accessor reaches exactly the field its key names: a field added to
// a struct but not to the table fails here, and so does a row whose
// accessor was copied from its neighbour and not changed.
func TestPersonFieldsCover(t *testing.T) {
	for _, a := range answers {
		keys := map[string]bool{}
		for i := 0; i < a.t.NumField(); i++ {
			sf := a.t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			key := jsonKey(sf)
			keys[key] = true
			f := fieldByKey(key)
			if f == nil {
				t.Errorf("%s.%s (%q) has no row in PersonFields: add one (fields.go)", a.t.Name(), sf.Name, key)
				continue
			}
			if f.From&a.from == 0 {
				t.Errorf("row %q: From is %s, but %s has the field", key, f.From, a.t.Name())
			}
			v := reflect.New(a.t)
			p := reach(f, a.from, v)
			kind := sf.Type.Kind()
			if p == nil {
				if kind == reflect.String || (kind == reflect.Int && a.from == FromEnrichment) {
					t.Errorf("row %q has no accessor for %s.%s", key, a.t.Name(), sf.Name)
				}
				continue
			}
			switch p := p.(type) {
			case *string:
				*p = "x"
			case *int:
				*p = 7
			}
			for j := 0; j < a.t.NumField(); j++ {
				if set := !v.Elem().Field(j).IsZero(); set != (j == i) {
					t.Errorf("row %q: its %s accessor reaches %s.%s, not %s", key, a.from, a.t.Name(), a.t.Field(j).Name, sf.Name)
				}
			}
		}
		for _, f := range PersonFields {
			if f.From&a.from != 0 && !keys[f.Key] {
				t.Errorf("row %q says %s has it, but %s has no field %q", f.Key, a.from, a.t.Name(), f.Key)
			}
			if reach(f, a.from, reflect.New(a.t)) != nil && f.From&a.from == 0 {
				t.Errorf("row %q has an accessor for %s but From is %s", f.Key, a.t.Name(), f.From)
			}
		}
	}
}

// The table's other columns agree with each other: one row per key,
// column and pg column; a column has a label; only lead fields are where
// attributes, enter the identity hash or merge otherwise than by the
// newest value.
func TestPersonFieldsConsistent(t *testing.T) {
	seen := map[string]string{}
	once := func(kind, name, key string) {
		if name == "" {
			return
		}
		if other, dup := seen[kind+" "+name]; dup {
			t.Errorf("rows %q and %q have the same %s %q", other, key, kind, name)
		}
		seen[kind+" "+name] = key
	}
	for _, f := range PersonFields {
		once("key", f.Key, f.Key)
		once("column", f.Column, f.Key)
		if f.Lead != nil {
			once("people column", f.PG, f.Key)
		}
		if f.Enriched != nil || f.EnrichedInt != nil {
			once("enrichments column", f.PG, f.Key)
		}
		if (f.Column == "") != (f.Label == "") {
			t.Errorf("row %q: column %q with label %q: a column needs a label, a label a column", f.Key, f.Column, f.Label)
		}
		if f.Default && f.Column == "" {
			t.Errorf("row %q is a default column but has no column", f.Key)
		}
		if f.Lead == nil && (f.Where || f.Identity || f.Merge != MergeNewest || f.History) {
			t.Errorf("row %q: where, identity, merge and history are for lead fields; it has no Lead accessor", f.Key)
		}
		if f.History && f.Merge == MergeKey {
			t.Errorf("row %q: a key (the person's identity) is no history", f.Key)
		}
		if f.PG != "" && f.Lead == nil && f.Enriched == nil && f.EnrichedInt == nil {
			t.Errorf("row %q has pg column %q, but the pg backend keeps a profile whole", f.Key, f.PG)
		}
		if f.Column != "" && f.Label == f.Column {
			t.Errorf("row %q: the label %q is the column name; a label is words a person reads", f.Key, f.Label)
		}
	}
}

// LeadFields and EnrichedFields are in the order of the structs' fields,
// which is the order encoding/json writes and the state file keeps.
func TestFieldsInStructOrder(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		rows []*PersonField
	}{{reflect.TypeFor[Lead](), LeadFields}, {reflect.TypeFor[EnrichedProfile](), EnrichedFields}} {
		var want, got []string
		for i := 0; i < c.t.NumField(); i++ {
			want = append(want, jsonKey(c.t.Field(i)))
		}
		for _, f := range c.rows {
			got = append(got, f.Key)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s rows: %v, want %v", c.t.Name(), got, want)
		}
	}
}

// An enrichment's lead has every lead field the enrichment has.
func TestEnrichedProfileLead(t *testing.T) {
	var e EnrichedProfile
	ev := reflect.ValueOf(&e).Elem()
	byKey := map[string]string{}
	for i := 0; i < ev.NumField(); i++ {
		if ev.Field(i).Kind() == reflect.String {
			v := "value of " + jsonKey(ev.Type().Field(i))
			ev.Field(i).SetString(v)
			byKey[jsonKey(ev.Type().Field(i))] = v
		}
	}
	l := e.Lead()
	lv := reflect.ValueOf(l)
	for i := 0; i < lv.NumField(); i++ {
		key := jsonKey(lv.Type().Field(i))
		if want, ok := byKey[key]; ok && lv.Field(i).String() != want {
			t.Errorf("Lead().%s = %q, want %q", lv.Type().Field(i).Name, lv.Field(i).String(), want)
		}
	}
}

func TestFieldLookups(t *testing.T) {
	if f := FieldByColumn("workHistory"); f == nil || f.Key != "workPositionTimeline" {
		t.Errorf("FieldByColumn(workHistory) = %+v", f)
	}
	if FieldByColumn("") != nil || FieldByColumn("foundIn") != nil || fieldByKey("nope") != nil {
		t.Error("a lookup of no field found one")
	}
	if got := (FromLead | FromEnrichment).String(); got != "lead+enrichment" {
		t.Errorf("Source.String = %q", got)
	}
}
