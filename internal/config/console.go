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
// search.<name> and profile.<name>, the instances each block expands to,
// and module.<name>, the instances of a module call, each with its own.
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
	ctx.Variables = c.moduleVars("", newConsoleBlocks(c, found))
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

// consoleInstance is one instance of a search or profile block, as
// search.<name> shows it.
type consoleInstance struct {
	module, name, addr string
	request            any
}

// consoleBlocks are the instances of search and profile blocks by the
// module instance that declares them ("" for the root), and the people
// of the state each instance found.
type consoleBlocks struct {
	searches, profiles map[string][]consoleInstance
	found              map[string]int
}

func newConsoleBlocks(c *Config, found map[string]int) *consoleBlocks {
	b := &consoleBlocks{searches: map[string][]consoleInstance{}, profiles: map[string][]consoleInstance{}, found: found}
	for _, s := range c.Searches {
		b.searches[s.Module] = append(b.searches[s.Module], consoleInstance{s.Module, s.Name, s.Address, s.Request.Params})
	}
	for _, p := range c.Profiles {
		b.profiles[p.Module] = append(b.profiles[p.Module], consoleInstance{p.Module, p.Name, p.Address, p.Request})
	}
	return b
}

// moduleVars are search, profile and module of the module instance path
// ("" for the root).
func (c *Config) moduleVars(path string, b *consoleBlocks) map[string]cty.Value {
	return map[string]cty.Value{
		"search":  c.blockValues(b.searches[path], b.found),
		"profile": c.blockValues(b.profiles[path], b.found),
		"module":  c.moduleCalls(path, b),
	}
}

// moduleCalls is module in the module instance path: its calls by name,
// each what its instances are (as a block's), each instance its address
// and the search, profile and module of its own.
func (c *Config) moduleCalls(path string, b *consoleBlocks) cty.Value {
	byName := map[string][]string{}
	for _, m := range c.Modules {
		parent := strings.TrimSuffix(strings.TrimSuffix(m.Call, "module."+m.Name), ".")
		if parent == path {
			byName[m.Name] = append(byName[m.Name], m.Address)
		}
	}
	calls := make(map[string]cty.Value, len(byName))
	for name, addrs := range byName {
		calls[name] = expansion(addrs, func(addr string) cty.Value {
			vars := c.moduleVars(addr, b)
			vars["address"] = cty.StringVal(addr)
			return cty.ObjectVal(vars)
		})
	}
	return cty.ObjectVal(calls)
}

// blockValues is search or profile in the console: an object of the
// blocks by name, each what its instances are (expansion).
func (c *Config) blockValues(insts []consoleInstance, found map[string]int) cty.Value {
	byName := map[string][]string{}
	byAddr := make(map[string]consoleInstance, len(insts))
	for _, in := range insts {
		byName[in.name] = append(byName[in.name], in.addr)
		byAddr[in.addr] = in
	}
	blocks := make(map[string]cty.Value, len(byName))
	for name, addrs := range byName {
		blocks[name] = expansion(addrs, func(addr string) cty.Value { return c.instanceValue(byAddr[addr], found) })
	}
	return cty.ObjectVal(blocks)
}

// expansion is what the instances of a block or module call are: the one
// instance of a block without for_each or count, an object by for_each
// key, or a tuple by count index.
func expansion(addrs []string, val func(addr string) cty.Value) cty.Value {
	key := lastKey(addrs[0])
	switch {
	case key == "":
		return val(addrs[0])
	case strings.HasPrefix(key, `["`):
		m := make(map[string]cty.Value, len(addrs))
		for _, addr := range addrs {
			k := lastKey(addr)
			if u, err := strconv.Unquote(k[1 : len(k)-1]); err == nil {
				k = u
			}
			m[k] = val(addr)
		}
		return cty.ObjectVal(m)
	}
	sort.Slice(addrs, func(i, j int) bool { return address.NewSortKey(addrs[i]).Less(address.NewSortKey(addrs[j])) })
	vals := make([]cty.Value, len(addrs))
	for i, addr := range addrs {
		vals[i] = val(addr)
	}
	return cty.TupleVal(vals)
}

// lastKey is the key of the instance an address names, brackets
// included: a block's, or a module instance's last call's.
func lastKey(addr string) string {
	a, err := address.Parse(addr)
	switch {
	case err != nil:
		return ""
	case a.IsModule() && len(a.Module) > 0:
		return a.Module[len(a.Module)-1].Key
	}
	return a.Key
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
func LeadValue(l person.Lead) cty.Value { return leadValue(l, nil, false) }

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
	if slices.Contains(personFields, "validationStatus") {
		diags = append(diags, emptyStatusWords(expr)...) // its name is "not found"
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
