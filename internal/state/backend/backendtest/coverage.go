package backendtest

import (
	"reflect"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// notInFixture are the fields of State a fold of events never sets: the
// marks a backend gives when it writes or loads.
// Service and Configuration are set by an apply, not an event:
// ServiceHeader checks them.
var notInFixture = map[string]bool{"Serial": true, "LeadsyncVersion": true, "Journal": true, "Epoch": true, "Service": true, "Configuration": true}

// covers fails t unless s (the fixture folded) sets every field of State,
// and every field of a person (its lead, profile and enrichment included)
// in some person: a field added to the state is then added to Events,
// and the round trip checks that every backend keeps it.
func covers(t TB, s *state.State) {
	t.Helper()
	var missing []string
	sv := reflect.ValueOf(s).Elem()
	for i := 0; i < sv.NumField(); i++ {
		f := sv.Type().Field(i)
		if f.IsExported() && !notInFixture[f.Name] && sv.Field(i).IsZero() {
			missing = append(missing, "State."+f.Name)
		}
	}
	set := map[string]bool{}
	for _, p := range s.People {
		markSet(set, "Person", reflect.ValueOf(*p))
	}
	for _, name := range fieldNames("Person", reflect.TypeOf(state.Person{})) {
		if !set[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("the fixture (Events) sets no %s: add a call that sets it, so that the suite checks every backend keeps it", strings.Join(missing, ", "))
	}
}

// leaf says whether a struct type is read field by field (ours and the
// service's) rather than as one value (time.Time).
func leaf(t reflect.Type) bool {
	return t.Kind() != reflect.Struct || t.PkgPath() == "time"
}

// fieldNames lists the fields of t, structs followed into.
func fieldNames(prefix string, t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		name := prefix + "." + f.Name
		if leaf(ft) {
			out = append(out, name)
		} else {
			out = append(out, fieldNames(name, ft)...)
		}
	}
	return out
}

// markSet records in set the fields of v that are not zero.
func markSet(set map[string]bool, prefix string, v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		name := prefix + "." + f.Name
		if leaf(fv.Type()) {
			if !fv.IsZero() {
				set[name] = true
			}
			continue
		}
		markSet(set, name, fv)
	}
}
