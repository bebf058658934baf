package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/person"
)

// ConsoleFile is the file name diagnostics give a line of leadsync
// console.
const ConsoleFile = "<console-input>"

// Scope is the evaluation context of the root module of a loaded
// configuration, for leadsync console: var, local, path, leadsync and the
// functions, as the configuration's own expressions see them, plus
// search.<name> and profile.<name>, the instances each block expands to.
// It reads nothing and writes nothing: every value was worked out by Load.
type Scope struct {
	cfg *Config
	ctx *hcl.EvalContext
}

// ConsoleScope returns the scope of c's root module. found counts, by
// instance address, the people of the state that instance found (nil: no
// state); an instance's people is 0 without an entry.
func (c *Config) ConsoleScope(found map[string]int) *Scope {
	base := c.evalCtx
	if base == nil {
		base = &hcl.EvalContext{}
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{
		"search":  c.blockValues(searchInstances(c.Searches), found),
		"profile": c.blockValues(profileInstances(c.Profiles), found),
	}
	return &Scope{cfg: c, ctx: ctx}
}

// ParseConsoleLine parses line n (from 1) of the console's input as an
// expression: its diagnostics say that line. The file a snippet is taken
// from is then ConsoleSource(line, n).
func ParseConsoleLine(line string, n int) (hcl.Expression, hcl.Diagnostics) {
	return hclsyntax.ParseExpression([]byte(line), ConsoleFile, hcl.Pos{Line: n, Column: 1, Byte: n - 1})
}

// ConsoleSource is the source of line n of the console's input as
// ParseConsoleLine places it: the line after n-1 empty ones.
func ConsoleSource(line string, n int) []byte {
	return []byte(strings.Repeat("\n", n-1) + line)
}

// Eval evaluates expr in the scope, with extra variables (person, lead)
// when given. Diagnostics are scrubbed of sensitive values; a sensitive
// value stays marked (its mark is the only one values carry).
func (s *Scope) Eval(expr hcl.Expression, extra map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	ctx := s.ctx
	if extra != nil {
		ctx = ctx.NewChild()
		ctx.Variables = extra
	}
	v, ds := expr.Value(ctx)
	return v, s.cfg.ScrubDiagnostics(ds)
}

// consoleInstance is one instance of a search or profile block of the root
// module, as search.<name> shows it.
type consoleInstance struct {
	name, addr string
	request    any
}

func searchInstances(ss []*Search) []consoleInstance {
	var out []consoleInstance
	for _, s := range ss {
		if s.Module == "" {
			out = append(out, consoleInstance{s.Name, s.Address, s.Request.Params})
		}
	}
	return out
}

func profileInstances(ps []*Profile) []consoleInstance {
	var out []consoleInstance
	for _, p := range ps {
		if p.Module == "" {
			out = append(out, consoleInstance{p.Name, p.Address, p.Request})
		}
	}
	return out
}

// blockValues is search or profile in the console: an object of the
// blocks by name, each what its instances are: one object for a block
// without for_each or count, an object by for_each key, or a tuple by
// count index.
func (c *Config) blockValues(insts []consoleInstance, found map[string]int) cty.Value {
	byName := map[string][]consoleInstance{}
	for _, in := range insts {
		byName[in.name] = append(byName[in.name], in)
	}
	blocks := make(map[string]cty.Value, len(byName))
	for name, ins := range byName {
		blocks[name] = c.blockValue(ins, found)
	}
	return cty.ObjectVal(blocks)
}

func (c *Config) blockValue(ins []consoleInstance, found map[string]int) cty.Value {
	a, err := address.Parse(ins[0].addr)
	if err != nil || a.Key == "" {
		return c.instanceValue(ins[0], found)
	}
	if strings.HasPrefix(a.Key, `["`) {
		m := make(map[string]cty.Value, len(ins))
		for _, in := range ins {
			m[instanceKey(in.addr)] = c.instanceValue(in, found)
		}
		return cty.ObjectVal(m)
	}
	sort.Slice(ins, func(i, j int) bool { return address.NewSortKey(ins[i].addr).Less(address.NewSortKey(ins[j].addr)) })
	vals := make([]cty.Value, len(ins))
	for i, in := range ins {
		vals[i] = c.instanceValue(in, found)
	}
	return cty.TupleVal(vals)
}

// instanceKey is the for_each key of an instance address.
func instanceKey(addr string) string {
	a, _ := address.Parse(addr)
	k, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(a.Key, "["), "]"))
	if err != nil {
		return a.Key
	}
	return k
}

// instanceValue is one instance: its address, the request it sends (by
// the service's names; sensitive when it holds a sensitive value) and
// how many people of the state it found.
func (c *Config) instanceValue(in consoleInstance, found map[string]int) cty.Value {
	req := cty.EmptyObjectVal
	if data, err := json.Marshal(in.request); err == nil {
		if ty, err := ctyjson.ImpliedType(data); err == nil {
			if v, err := ctyjson.Unmarshal(data, ty); err == nil {
				req = v
			}
		}
		if c.Scrub(string(data)) != string(data) {
			req = req.Mark(sensitiveMark)
		}
	}
	return cty.ObjectVal(map[string]cty.Value{
		"address": cty.StringVal(in.addr),
		"request": req,
		"people":  cty.NumberIntVal(int64(found[in.addr])),
	})
}

// LeadValue is `lead` of an enrich block's where for l: the lead fields
// every search result has.
func LeadValue(l person.Lead) cty.Value { return leadValue(l) }

// PersonValue is `person` of a sheet's where: the values given by field
// (as the person's cells show them), null for the others.
func PersonValue(fields map[string]cty.Value) cty.Value {
	attrs := make(map[string]cty.Value, len(PersonAttributes))
	for _, f := range PersonAttributes {
		if v, ok := fields[f]; ok {
			attrs[f] = v
		} else {
			attrs[f] = cty.NullVal(PersonFieldType(f))
		}
	}
	return cty.ObjectVal(attrs)
}

// WhereRoots says which of person.<field> (a sheet's where) and
// lead.<field> (an enrich block's) expr reads, and the person fields it
// reads, or an error when it reads both or neither, or a field that
// neither has (with the nearest name).
func WhereRoots(expr hcl.Expression) (personFields []string, lead bool, diags hcl.Diagnostics) {
	usesPerson := false
	for _, t := range expr.Variables() {
		root := t.RootName()
		if root != "person" && root != "lead" {
			continue
		}
		usesPerson, lead = usesPerson || root == "person", lead || root == "lead"
		at, ok := hcl.Traversal(nil), false
		if len(t) > 1 {
			_, ok = t[1].(hcl.TraverseAttr)
			at = t[:2]
		}
		if !ok {
			continue
		}
		name := at[1].(hcl.TraverseAttr).Name
		known := whereFields(root)
		if !slices.Contains(known, name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown field",
				Detail:  fmt.Sprintf("%s has no field %q.%s", root, name, orList(didYouMean(name, known), known)),
				Subject: at.SourceRange().Ptr()})
			continue
		}
		if root == "person" && !slices.Contains(personFields, name) {
			personFields = append(personFields, name)
		}
	}
	if usesPerson == lead {
		what := "neither"
		if lead {
			what = "both"
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid where",
			Detail:  fmt.Sprintf("A where reads person.<field> (as a sheet's where does) or lead.<field> (as an enrich block's), and this one reads %s; for example: where person.validationStatus == \"valid\".", what),
			Subject: expr.Range().Ptr()})
	}
	return personFields, lead, diags
}

// whereFields are the fields of person (PersonAttributes) or of lead (the
// lead fields every search result has).
func whereFields(root string) []string {
	if root == "person" {
		return PersonAttributes
	}
	var out []string
	for _, f := range person.LeadFields {
		if f.Where {
			out = append(out, f.Key)
		}
	}
	return out
}

// orList is hint when there is one, else the list of known names.
func orList(hint string, known []string) string {
	if hint != "" {
		return hint
	}
	return " It has " + strings.Join(known, ", ") + "."
}
