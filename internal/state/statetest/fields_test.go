package statetest

import (
	"reflect"
	"testing"
)

// FullLead, FullEnrichment and FullProfile set every field of the answers,
// those of the structs in their lists too: a field added to a struct is
// filled (from person.PersonFields, or here by hand), or this fails.
func TestFullAnswersSetEveryField(t *testing.T) {
	for name, v := range map[string]any{
		"FullLead":       FullLead("t", "n1", "p1"),
		"FullEnrichment": FullEnrichment("t", "n1", "p1", 5),
		"FullProfile":    FullProfile("t"),
	} {
		for _, missing := range unset(reflect.ValueOf(v), reflect.TypeOf(v).Name()) {
			t.Errorf("%s leaves %s unset", name, missing)
		}
	}
}

// unset lists the fields of the struct v that are zero; for a list of
// structs, the fields no item sets.
func unset(v reflect.Value, path string) []string {
	var out []string
	for i := 0; i < v.NumField(); i++ {
		f, fv := v.Type().Field(i), v.Field(i)
		name := path + "." + f.Name
		switch {
		case fv.IsZero():
			out = append(out, name)
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct:
			for _, m := range unset(fv.Index(0), name+"[]") {
				all := true
				for k := 1; k < fv.Len(); k++ {
					if !contains(unset(fv.Index(k), name+"[]"), m) {
						all = false
					}
				}
				if all {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
