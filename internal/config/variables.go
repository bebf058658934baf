package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// sensitiveMark marks values of sensitive variables, so that everything
// computed from them is known to be secret too.
const sensitiveMark = "sensitive"

type variable struct {
	name        string
	block       *hcl.Block
	ty          cty.Type
	defaults    *typeexpr.Defaults
	sensitive   bool
	description string
	validations []validation

	value    cty.Value // marked when sensitive; cty.DynamicVal after an error
	set      bool      // a value was given or defaulted
	bad      bool      // the last value given was invalid (already reported)
	source   string    // where the value came from, for messages
	valRange *hcl.Range
}

type validation struct {
	condition hcl.Expression
	message   hcl.Expression
	rng       hcl.Range
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "nullable"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true}, {Name: "error_message", Required: true},
	},
}

func (l *loader) declareVariables(blocks hcl.Blocks) {
	for _, b := range blocks {
		// A module's variable block declares the same variable in every
		// instance: read once (nil when its name is refused), copied for
		// each.
		proto, ok := l.varDecls[b]
		if !ok {
			start := len(l.diags)
			if l.uniqueName(b) {
				proto = l.declareVariable(b)
			}
			l.varDecls[b] = proto
			l.static(l.diags[start:])
		}
		if proto == nil {
			continue
		}
		v := *proto
		l.vars[v.name] = &v
		l.varOrder = append(l.varOrder, v.name)
	}
}

// declareVariable reads a variable block: its type, description,
// sensitivity, default and validation rules.
func (l *loader) declareVariable(b *hcl.Block) *variable {
	v := &variable{name: b.Labels[0], block: b, ty: cty.DynamicPseudoType, value: cty.DynamicVal}
	if l.call != nil && contains(moduleMeta, v.name) {
		l.errorf(b.LabelRanges[0].Ptr(), "Reserved variable name",
			"A module's variable cannot be named %q: the module block uses that argument itself (%s), so no call could give it a value. Rename the variable.", v.name, strings.Join(moduleMeta, ", "))
	}
	content, ds := b.Body.Content(variableSchema)
	l.add(ds)
	if a := content.Attributes["type"]; a != nil {
		ty, defaults, ds := typeexpr.TypeConstraintWithDefaults(a.Expr)
		if l.add(ds) {
			v.ty, v.defaults = ty, defaults
		}
	}
	if a := content.Attributes["description"]; a != nil {
		if s, ok := l.literalString(a); ok {
			v.description = s
		}
	}
	if a := content.Attributes["sensitive"]; a != nil {
		val, ds := a.Expr.Value(nil)
		if l.add(ds) {
			if val.Type() != cty.Bool || val.IsNull() {
				l.errorf(a.Expr.Range().Ptr(), "Invalid sensitive", "sensitive is true or false.")
			} else {
				v.sensitive = val.True()
			}
		}
	}
	if a := content.Attributes["nullable"]; a != nil {
		l.warnf(a.Range.Ptr(), "nullable is ignored", "leadsync treats a null variable value like an unset attribute; nullable has no effect.")
	}
	if a := content.Attributes["default"]; a != nil {
		if v.sensitive {
			l.secretRange(a.Expr)
		}
		val, ds := a.Expr.Value(nil)
		if l.add(ds) && !val.IsNull() {
			if conv, ok := l.convertVar(v, val, "its default", a.Expr.Range().Ptr()); ok {
				v.value, v.set, v.source, v.valRange = conv, true, "its default", a.Expr.Range().Ptr()
			} else {
				v.bad = true
			}
		}
	}
	for _, vb := range content.Blocks {
		vc, ds := vb.Body.Content(validationSchema)
		if !l.add(ds) {
			continue
		}
		v.validations = append(v.validations, validation{
			condition: vc.Attributes["condition"].Expr,
			message:   vc.Attributes["error_message"].Expr,
			rng:       vb.DefRange,
		})
	}
	return v
}

// literalString evaluates an attribute that must be a constant string.
func (l *loader) literalString(a *hcl.Attribute) (string, bool) {
	val, ds := a.Expr.Value(nil)
	if !l.add(ds) {
		return "", false
	}
	val, err := convert.Convert(val, cty.String)
	// Unknown: an expression the parser could not read (its error is
	// reported already) evaluates so, without a diagnostic of its own.
	if err != nil || val.IsNull() || !val.IsKnown() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid "+a.Name, "%s must be a string.", a.Name)
		return "", false
	}
	return val.AsString(), true
}

// convertVar converts a value given for v to its type (applying optional
// attribute defaults). Messages never show the value.
func (l *loader) convertVar(v *variable, val cty.Value, from string, rng *hcl.Range) (cty.Value, bool) {
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	conv, err := convertLinear(val, v.ty)
	if err != nil {
		detail := fmt.Sprintf("The value of var.%s from %s is not a valid %s: %s.", v.name, from, typeexpr.TypeString(v.ty), err)
		if v.sensitive {
			detail = fmt.Sprintf("The value of var.%s from %s is not a valid %s.", v.name, from, typeexpr.TypeString(v.ty))
		}
		l.errorf(rng, "Invalid value for variable", "%s", detail)
		return cty.DynamicVal, false
	}
	return conv, true
}

// assignVariables applies the value sources in order of precedence (later
// wins): LEADSYNC_VAR_name, *.auto.leadvars.hcl, --var-file, --var. Then it
// checks required variables and validation rules, and marks sensitive values.
func (l *loader) assignVariables() {
	for _, kv := range l.opts.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvVarPrefix) {
			continue
		}
		name = strings.TrimPrefix(name, EnvVarPrefix)
		if v := l.vars[name]; v != nil {
			l.setFromString(v, val, "the environment variable "+EnvVarPrefix+name)
		}
	}
	auto, _ := fs.Glob(l.fsys, "*"+VarsSuffix)
	sort.Strings(auto)
	for _, name := range auto {
		src, err := fs.ReadFile(l.fsys, name)
		if err != nil {
			l.errorf(nil, "Cannot read variables file", "Reading %s: %v.", name, err)
			continue
		}
		l.varFile(name, src, false)
	}
	for _, p := range l.opts.VarFiles {
		src, err := l.readUserFile(p)
		if err != nil {
			l.errorf(nil, "Cannot read --var-file", "Reading %s: %v. The path is relative to the configuration directory (%s).", p, err, l.opts.Dir)
			continue
		}
		l.varFile(p, src, true)
	}
	for _, kv := range l.opts.Vars {
		name, val, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			l.errorf(nil, "Invalid --var", "--var takes name=value, like --var 'cities=[\"Berlin\"]'; got one without \"=\".")
			continue
		}
		v := l.vars[name]
		if v == nil {
			l.errorf(nil, "Value for undeclared variable", "--var sets %q, but no variable block declares it.%s", name, undeclaredHint(name, l.varOrder))
			continue
		}
		l.setFromString(v, val, "--var")
	}

	l.finishVariables(func(v *variable) {
		l.errorf(v.block.DefRange.Ptr(), "No value for required variable",
			"var.%s has no default and no value was given. Give it one with --var %s=VALUE, in a *%s file (%s = ...), with --var-file, or in the environment as %s%s.",
			v.name, v.name, VarsSuffix, v.name, EnvVarPrefix, v.name)
	})
	for _, name := range l.varOrder {
		v := l.vars[name]
		val, _ := v.value.Unmark()
		l.cfg.Variables[name] = &Variable{
			Name: name, Description: v.description, Sensitive: v.sensitive,
			Value: val, DeclRange: v.block.DefRange,
		}
	}
}

// finishVariables checks the variables once their values are assigned:
// missing reports each required variable without a value, then the
// validation rules run and sensitive values are marked.
func (l *loader) finishVariables(missing func(v *variable)) {
	for _, name := range l.varOrder {
		v := l.vars[name]
		if !v.set {
			if !v.bad { // else an invalid value, already reported
				missing(v)
			}
			continue
		}
		l.checkValidations(v)
		if v.sensitive && v.value.IsWhollyKnown() {
			l.collectSecrets(v.value)
			v.value = v.value.Mark(sensitiveMark)
			l.marked = true
		}
	}
}

// readUserFile reads a file named on the command line, relative to Dir.
func (l *loader) readUserFile(p string) ([]byte, error) {
	if filepath.IsAbs(p) {
		return os.ReadFile(p)
	}
	return fs.ReadFile(l.fsys, filepath.ToSlash(filepath.Clean(p)))
}

// varFile applies a variables file. Undeclared names are errors in files the
// user named (--var-file) and warnings in automatic ones, like Terraform.
func (l *loader) varFile(name string, src []byte, explicit bool) {
	if !l.varFileSize(name, src) {
		return
	}
	if d := CheckNesting(name, src); d != nil {
		l.add(hcl.Diagnostics{d})
		return
	}
	f, ds := l.parser.ParseHCL(src, name)
	if f != nil {
		l.cfg.Files[name] = f
	}
	if !l.add(ds) || f == nil {
		return
	}
	attrs, ds := f.Body.JustAttributes()
	l.add(ds)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		v := l.vars[n]
		if v == nil {
			if explicit {
				l.errorf(a.NameRange.Ptr(), "Value for undeclared variable", "%s sets %q, but no variable block declares it.%s", name, n, undeclaredHint(n, l.varOrder))
			} else {
				l.warnf(a.NameRange.Ptr(), "Value for undeclared variable", "%s sets %q, but no variable block declares it, so it is ignored.%s", name, n, undeclaredHint(n, l.varOrder))
			}
			continue
		}
		if v.sensitive {
			l.secretRange(a.Expr)
		}
		val, ds := a.Expr.Value(nil)
		if !l.add(ds) {
			v.value, v.valRange = cty.DynamicVal, a.Expr.Range().Ptr()
			v.set, v.bad = false, true
			continue
		}
		l.setValue(v, val, name, a.Expr.Range().Ptr())
	}
}

func (l *loader) setValue(v *variable, val cty.Value, from string, rng *hcl.Range) {
	if val.IsNull() {
		return // null means: not given here
	}
	conv, ok := l.convertVar(v, val, from, rng)
	v.value, v.source = conv, from
	v.valRange = rng
	v.set, v.bad = ok, !ok
}

// setFromString applies a value from --var or the environment. Primitive
// (and untyped) variables take the text as is; others parse it as an HCL
// expression, like Terraform.
func (l *loader) setFromString(v *variable, raw, from string) {
	if v.sensitive {
		l.secrets[raw] = true
	}
	rng := v.block.DefRange.Ptr()
	if v.ty.IsPrimitiveType() || v.ty == cty.DynamicPseudoType {
		l.setValue(v, cty.StringVal(raw), from, rng)
		return
	}
	var ds hcl.Diagnostics
	var expr hclsyntax.Expression
	if d := CheckNesting("<value for var."+v.name+">", []byte(raw)); d != nil {
		ds = hcl.Diagnostics{d}
	} else {
		expr, ds = hclsyntax.ParseExpression([]byte(raw), "<value for var."+v.name+">", hcl.InitialPos)
	}
	var val cty.Value
	if !ds.HasErrors() {
		val, ds = expr.Value(nil)
	}
	if ds.HasErrors() {
		detail := fmt.Sprintf("The value of var.%s from %s must be written as an HCL expression of type %s, like '[\"a\", \"b\"]' for a list or '{ key = \"value\" }' for a map",
			v.name, from, typeexpr.TypeString(v.ty))
		switch {
		case v.sensitive:
		case expr != nil && len(expr.Variables()) > 0:
			// A bare word like Berlin parses as a reference; HCL's own
			// "Variables not allowed" does not say what to do.
			detail += fmt.Sprintf(": %s is read as a name, not text; put text in quotes inside the expression, like '[\"%s\"]'",
				expr.Variables()[0].RootName(), expr.Variables()[0].RootName())
		default:
			detail += ": " + ds[0].Summary
			if ds[0].Detail != "" {
				detail += "; " + ds[0].Detail
			}
		}
		l.errorf(rng, "Invalid value for variable", "%s", strings.TrimSuffix(detail, ".")+".")
		v.value, v.valRange, v.set, v.bad = cty.DynamicVal, rng, false, true
		return
	}
	l.setValue(v, val, from, rng)
}

// checkValidations evaluates the validation rules of v against its value.
func (l *loader) checkValidations(v *variable) {
	if len(v.validations) == 0 || !v.value.IsWhollyKnown() {
		return
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.name: v.value})},
		Functions: l.funcs,
	}
	for _, rule := range v.validations {
		if ds := l.checkRefs(rule.condition, scope{varOnly: v.name}); ds.HasErrors() {
			l.add(ds)
			continue
		}
		res, ds := rule.condition.Value(ctx)
		if ds.HasErrors() {
			if v.sensitive {
				l.errorf(rule.condition.Range().Ptr(), "Invalid validation condition", "The condition of var.%s failed to evaluate (details hidden: the variable is sensitive).", v.name)
			} else {
				l.add(ds)
			}
			continue
		}
		res, _ = res.Unmark()
		res, err := convert.Convert(res, cty.Bool)
		if err != nil || res.IsNull() || !res.IsKnown() {
			l.errorf(rule.condition.Range().Ptr(), "Invalid validation condition", "A validation condition must be true or false.")
			continue
		}
		if res.True() {
			continue
		}
		msg := "The value is not valid."
		if mv, ds := rule.message.Value(ctx); !ds.HasErrors() {
			if mv, err := convert.Convert(mv, cty.String); err == nil && !mv.IsNull() && mv.IsKnown() && !mv.IsMarked() {
				msg = mv.AsString()
			}
		}
		l.errorf(v.valRange, "Invalid value for variable",
			"%s\n\nThe value of var.%s comes from %s; the rule is at %s.", msg, v.name, v.source, shortRange(rule.rng))
		v.value = cty.DynamicVal // keep later checks from repeating the problem
		return
	}
}

// collectSecrets remembers every string inside a sensitive value, so that
// it can be scrubbed from messages.
func (l *loader) collectSecrets(v cty.Value) {
	v, _ = v.UnmarkDeep()
	if !v.IsKnown() || v.IsNull() {
		return
	}
	switch {
	case v.Type() == cty.String:
		l.secrets[v.AsString()] = true
	case v.Type().IsPrimitiveType():
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			l.collectSecrets(e)
		}
	}
}

// secretRange records the source range of a sensitive literal.
func (l *loader) secretRange(expr hcl.Expression) {
	l.secretRanges = append(l.secretRanges, expr.Range())
	if v, ds := expr.Value(nil); !ds.HasErrors() {
		l.collectSecrets(v)
	}
}

// didYouMean returns " Did you mean "x"?" or "".
// undeclaredHint says how to fix a value given for the undeclared variable
// name: the nearest declared name, else which names are declared and how to
// declare one.
func undeclaredHint(name string, declared []string) string {
	if s := didYouMean(name, declared); s != "" {
		return s
	}
	fix := fmt.Sprintf(" Declare it with a variable %q { } block, or remove the value.", name)
	switch {
	case len(declared) == 0:
		return " The configuration declares no variables." + fix
	case len(declared) <= 10:
		return " Declared variables: " + strings.Join(declared, ", ") + "." + fix
	}
	return fix
}

func didYouMean(value string, candidates []string) string {
	if n := nearest(value, candidates, 1); len(n) > 0 {
		return fmt.Sprintf(" Did you mean %q?", n[0])
	}
	return ""
}

// ctyConvert is cty's conversion; a test counts what goes through it.
var ctyConvert = convert.Convert

// convertLinear is convert.Convert made linear for collections: cty's
// conversion of a tuple to a list, set or map first unifies the types of
// all its elements by comparing them with each other, which takes
// quadratic time (a variable of 20,000 cities took 3 s, of 100,000 a
// minute). Each element is converted on its own to the collection's
// element type instead; values the fast path does not cover (unknown,
// marked, a type with "any" in it, an object) go to convert.Convert, and
// so does a value that fails, so that the error is cty's own.
func convertLinear(val cty.Value, want cty.Type) (cty.Value, error) {
	if val.IsNull() || !val.IsWhollyKnown() || val.ContainsMarked() || want.HasDynamicTypes() {
		return ctyConvert(val, want)
	}
	vt := val.Type()
	switch {
	case (want.IsListType() || want.IsSetType()) && (vt.IsTupleType() || vt.IsListType() || vt.IsSetType()):
		if val.LengthInt() == 0 {
			break
		}
		et := want.ElementType()
		elems := make([]cty.Value, 0, val.LengthInt())
		for it := val.ElementIterator(); it.Next(); {
			_, e := it.Element()
			ce, err := convertLinear(e, et)
			if err != nil {
				return ctyConvert(val, want)
			}
			elems = append(elems, ce)
		}
		if want.IsListType() {
			return cty.ListVal(elems), nil
		}
		return cty.SetVal(elems), nil
	case want.IsMapType() && (vt.IsObjectType() || vt.IsMapType()):
		if val.LengthInt() == 0 {
			break
		}
		et := want.ElementType()
		elems := make(map[string]cty.Value, val.LengthInt())
		for it := val.ElementIterator(); it.Next(); {
			k, e := it.Element()
			ce, err := convertLinear(e, et)
			if err != nil {
				return ctyConvert(val, want)
			}
			elems[k.AsString()] = ce
		}
		return cty.MapVal(elems), nil
	}
	return ctyConvert(val, want)
}
