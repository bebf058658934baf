package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
)

// TestWhereMemoGivesWhatWhereGives evaluates narrow wheres on leads that
// share their values, twice over and with a memo that fills up, and
// compares each answer (true, false or the error's message) with where
// evaluated anew; the memo evaluates where once a set of values.
func TestWhereMemoGivesWhatWhereGives(t *testing.T) {
	wheres := []string{
		`lead.company != ""`,
		`lead.company != var.skip && contains(["CTO"], lead.title)`,
		`jsondecode(lead.location)`,
		`tonumber(lead.networkId) > 2`,
		`"${lead.firstName}${lead.lastName}" != "ab"`,
		`var.skip == "Acme"`,
	}
	var src strings.Builder
	src.WriteString(base + "variable \"skip\" {\n  type = string\n}\nsearch \"s\" {\n  keywords = \"x\"\n}\n")
	for i, w := range wheres {
		fmt.Fprintf(&src, "enrich \"e%d\" {\n  from  = [search.s]\n  where = %s\n}\n", i, w)
	}
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", Vars: []string{"skip=Acme"}, FS: memFS(map[string]string{"main.leads.hcl": src.String()})})
	var leads []person.Lead
	for i := range 60 {
		leads = append(leads, person.Lead{
			Company: []string{"", "Acme", "Initech"}[i%3], Title: []string{"CTO", "Intern"}[i%2],
			Location: []string{"true", `"yes"`, "{", "false"}[i%4], NetworkID: []string{"3", "x", "1"}[i%3],
			// "a"+"b" and "ab"+"": one text, two values (LeadValuesKey keeps them apart).
			FirstName: []string{"a", "ab"}[i%2], LastName: []string{"b", ""}[i%2], PageName: fmt.Sprint(i),
		})
	}
	for _, max := range []int{1 << 16, 2} {
		old := maxWhereMemo
		maxWhereMemo = max
		for i, w := range wheres {
			e := cfg.Enriches[i]
			e.memo = newWhereMemo(e.narrow)
			for round := range 2 {
				for _, l := range leads {
					got, err := cfg.Match(e, l)
					want, wantErr := cfg.match(e, l)
					if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("%s on %+v (round %d, memo of %d): %v, %v; evaluated %v, %v", w, l, round, max, got, err, want, wantErr)
					}
				}
			}
			if distinct := distinctValues(leads, e.leadKeys); max > len(leads) && e.memo.evals != distinct {
				t.Errorf("%s: %d evaluations of 120 leads, want one for each of %d sets of values", w, e.memo.evals, distinct)
			}
		}
		maxWhereMemo = old
	}
}

// distinctValues counts the sets of values of keys among leads.
func distinctValues(leads []person.Lead, keys []string) int {
	seen := map[string]bool{}
	for _, l := range leads {
		var vs []string
		for _, k := range keys {
			vs = append(vs, leadField(&l, k))
		}
		seen[fmt.Sprintf("%q", vs)] = true
	}
	return len(seen)
}

// TestWhereMemoAllocatesNothing: a where met again with the same values
// allocates nothing (an evaluation builds the lead's object, its type and
// a context: about 2.4 KB).
func TestWhereMemoAllocatesNothing(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": base +
		"search \"s\" {\n  keywords = \"x\"\n}\nenrich \"e\" {\n  from  = [search.s]\n  where = lead.company != \"\" && lead.title != \"Intern\"\n}\n"})})
	e, lead := cfg.Enriches[0], person.Lead{Company: "Acme", Title: "CTO", FullName: "Ada Lovelace"}
	if ok, err := cfg.Match(e, lead); !ok || err != nil {
		t.Fatalf("Match: %v, %v", ok, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = cfg.Match(e, lead) }); n != 0 {
		t.Errorf("Match of a lead met again: %v allocations, want 0", n)
	}
}

// TestLeadFieldReadsEveryField: leadField gives each field of a lead as
// person.LeadFields reaches it.
func TestLeadFieldReadsEveryField(t *testing.T) {
	var lead person.Lead
	for i, f := range person.LeadFields {
		*f.Lead(&lead) = fmt.Sprint("value ", i)
	}
	for i, f := range person.LeadFields {
		if got := leadField(&lead, f.Key); got != fmt.Sprint("value ", i) {
			t.Errorf("leadField(%s) = %q, want %q", f.Key, got, fmt.Sprint("value ", i))
		}
	}
}

// TestPersonValuesKeyTellsValuesApart: persons whose values differ have
// different keys, however the texts split, whatever their types; equal
// values the same key.
func TestPersonValuesKeyTellsValuesApart(t *testing.T) {
	fields := []string{"company", "title", "private", "contactsCount"}
	vals := func(company, title string, private cty.Value, n cty.Value) map[string]cty.Value {
		return map[string]cty.Value{"company": cty.StringVal(company), "title": cty.StringVal(title), "private": private, "contactsCount": n}
	}
	people := []map[string]cty.Value{
		vals("ab", "c", cty.True, cty.NumberIntVal(1)),
		vals("a", "bc", cty.True, cty.NumberIntVal(1)),
		vals("a", "bc", cty.False, cty.NumberIntVal(1)),
		vals("a", "bc", cty.False, cty.NumberIntVal(10)),
		vals("a", "bc", cty.False, cty.NullVal(cty.Number)),
		vals("a", "bc", cty.NullVal(cty.Bool), cty.NullVal(cty.Number)),
		vals("n;", "", cty.False, cty.Zero),
		vals("", "n;", cty.False, cty.Zero),
		vals("Müller \"&\"", "", cty.False, cty.Zero),
		// (null, "x") and ("x", null): one text without null's marker.
		{"company": cty.NullVal(cty.String), "title": cty.StringVal("x"), "private": cty.False, "contactsCount": cty.Zero},
		{"company": cty.StringVal("x"), "title": cty.NullVal(cty.String), "private": cty.False, "contactsCount": cty.Zero},
	}
	seen := map[string]int{}
	for i, v := range people {
		key := string(PersonValuesKey(nil, fields, v))
		if j, ok := seen[key]; ok {
			t.Errorf("persons %d and %d share the key %q", j, i, key)
		}
		seen[key] = i
		if again := string(PersonValuesKey(nil, fields, people[i])); again != key {
			t.Errorf("person %d: key %q, then %q", i, key, again)
		}
	}
}
