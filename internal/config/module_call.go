package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/leadsync/leadsync/internal/address"
	"github.com/zclconf/go-cty/cty"
)

// Module is one instance of a module call: module "dach" { source = ... }
// makes one, or one per key of its for_each or count.
type Module struct {
	// Address is the instance's module path: module.dach,
	// module.dach["de"], module.dach.module.team[0].
	Address string
	// Addr is Address typed (a module address: Addr.IsModule()).
	Addr address.Address
	// Call is the address of its call (without the last key): module.dach.
	Call string
	Name string
	// Source is the source as written ("./personas/cto"); Dir is the folder
	// it names, relative to the root's folder, with forward slashes.
	Source    string
	Dir       string
	DeclRange hcl.Range
}

// moduleCall is a module block of one module, with its instances.
type moduleCall struct {
	name string
	info *blockInfo
	src  *moduleSource // nil when the source could not be read
	// instances are the instances' loaders in the order their keys were
	// expanded, with the keys (as blockInfo.keys holds them).
	keys      []string
	instances []*loader
}

// callSite is how a module instance was called: the module block, and
// the context its arguments are evaluated in (the caller's, with each or
// count of the instance).
type callSite struct {
	block    *hcl.Block
	addr     string // the instance: module.dach["de"]
	callAddr string // the call: module.dach
	parent   *loader
	inputs   []*hcl.Attribute // the arguments that are inputs, in source order
	// sources say where each input comes from, for messages.
	sources map[string]string
	in      instance
	src     *moduleSource
}

// moduleSource is a module folder, read once however many calls and
// instances use it.
type moduleSource struct {
	dir string
	// byType are its top-level blocks by type, in file order.
	byType map[string]hcl.Blocks
	// outputs are the names of its output blocks, for references to
	// outputs of a module whose instances are none (an empty for_each).
	outputs []string
	// variables are the names of its variable blocks, for messages.
	variables []string
}

// moduleMeta are the arguments of a module block that are not inputs.
var moduleMeta = []string{"source", "for_each", "count"}

// loadModules reads the module calls of l's module and loads each
// instance of each.
func (l *loader) loadModules(blocks hcl.Blocks) {
	for _, b := range blocks {
		if !l.uniqueName(b) {
			continue
		}
		l.loadModuleCall(b)
	}
}

func (l *loader) loadModuleCall(b *hcl.Block) {
	name := b.Labels[0]
	call := &moduleCall{name: name, info: &blockInfo{kind: "module", name: name, rng: b.DefRange}}
	if l.calls == nil {
		l.calls = map[string]*moduleCall{}
	}
	l.calls[name] = call
	attrs, ds := b.Body.JustAttributes()
	l.add(ds)
	src, dir, ok := l.moduleSourceAttr(b, attrs["source"])
	if !ok {
		return
	}
	call.src = l.readModule(dir, attrs["source"])
	if call.src == nil {
		return
	}
	inputs := hcl.Attributes{}
	sources := map[string]string{}
	callAddr := l.prefix + "module." + name
	for n, a := range attrs {
		if !contains(moduleMeta, n) {
			inputs[n] = a
			sources[n] = fmt.Sprintf("the argument %s of %s at %s", a.Name, callAddr, shortRange(a.NameRange))
		}
	}
	ordered := sortedAttrs(inputs)
	content := &hcl.BodyContent{Attributes: attrs}
	for _, in := range l.expand(b, content, call.info) {
		child := &loader{shared: l.shared}
		child.initModule(dir, in.addr+".")
		child.module = append(append([]address.Step(nil), l.module...), address.Step{Name: name, Key: in.akey})
		child.call = &callSite{block: b, addr: in.addr, callAddr: callAddr, parent: l, inputs: ordered, sources: sources, in: in, src: call.src}
		start := len(l.diags)
		child.loadBody(call.src.byType)
		l.noteModule(l.diags[start:], child)
		call.keys = append(call.keys, in.key)
		call.instances = append(call.instances, child)
		l.cfg.Modules = append(l.cfg.Modules, &Module{
			Address: in.addr, Addr: address.Address{Module: child.module}, Call: l.prefix + "module." + name, Name: name,
			Source: src, Dir: dir, DeclRange: b.DefRange,
		})
	}
}

// moduleSourceAttr checks a module's source: a literal local path, to a
// folder that is not one of the modules being read (a cycle). It returns
// the source and the folder it names, relative to the root's.
func (l *loader) moduleSourceAttr(b *hcl.Block, a *hcl.Attribute) (src, dir string, ok bool) {
	if a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing source", "A module block needs source, the folder of the module relative to this file's folder, like source = \"./personas/cto\".")
		return "", "", false
	}
	v, ds := a.Expr.Value(nil)
	if len(a.Expr.Variables()) > 0 || ds.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		l.errorf(a.Expr.Range().Ptr(), "Invalid source", "source must be a literal string, like source = \"./personas/cto\": leadsync reads the modules before it evaluates anything, so source cannot use variables, locals or functions.")
		return "", "", false
	}
	src = v.AsString()
	if !strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "../") {
		l.errorf(a.Expr.Range().Ptr(), "Unsupported module source",
			"leadsync reads modules from local folders only: source starts with ./ or ../ and names a folder relative to this file's folder, like \"./personas/cto\"; %q does not. Registries and version control addresses are not supported: copy the module into the repository.", src)
		return "", "", false
	}
	dir = path.Clean(path.Join(l.dir, src))
	if stack := l.folders(); slices.Contains(stack, dir) {
		i := slices.Index(stack, dir)
		chain := append(slices.Clone(stack[i:]), dir)
		l.errorf(a.Expr.Range().Ptr(), "Module cycle",
			"%s calls the module in %s, which is already being read: %s. A module cannot call itself, directly or through other modules.",
			l.prefix+"module."+b.Labels[0], dir, strings.Join(chain, " -> "))
		return "", "", false
	}
	return src, dir, true
}

// folders are the folders of the modules from the root down to l's, for
// finding cycles.
func (l *loader) folders() []string {
	var out []string
	for m := l; m != nil; {
		out = append(out, m.dir)
		if m.call == nil {
			break
		}
		m = m.call.parent
	}
	slices.Reverse(out)
	return out
}

// readModule reads the module folder dir (relative to the root's) once:
// a later call of the same folder gets the same blocks. A folder that
// does not exist, is a file, or holds no configuration file is an error at
// the source attribute of the first call that names it; nil then.
func (l *loader) readModule(dir string, a *hcl.Attribute) *moduleSource {
	if src, seen := l.sources[dir]; seen {
		return src
	}
	l.sources[dir] = nil
	rng := a.Expr.Range().Ptr()
	fsys, err := l.moduleFS(dir)
	if err != nil {
		l.errorf(rng, "Module folder outside the configuration", "%s names %s, outside the configuration folder: %v.", sourceText(a), dir, err)
		return nil
	}
	fi, err := l.statModule(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.errorf(rng, "Module folder not found", "%s names the folder %s, which does not exist. The path is relative to the folder of the file that calls the module.%s", sourceText(a), dir, l.folderHint(dir))
		return nil
	case err != nil:
		l.errorf(rng, "Cannot read module folder", "Reading %s: %v.", dir, unwrapPathError(err))
		return nil
	case !fi.IsDir():
		l.errorf(rng, "Module source is not a folder", "%s names %s, which is a file; a module is a folder of *%s files. Name the folder that holds it.", sourceText(a), dir, ConfigSuffix)
		return nil
	}
	names, _ := fs.Glob(fsys, "*"+ConfigSuffix)
	if len(names) == 0 {
		l.errorf(rng, "Module without configuration files", "The module folder %s holds no *%s file; a module is a folder of them, read as one like the root's.", dir, ConfigSuffix)
		return nil
	}
	sort.Strings(names)
	blocks, ok := l.readFiles(fsys, dir, names)
	if !ok {
		return nil
	}
	src := &moduleSource{dir: dir, byType: byType(blocks)}
	for _, b := range blocks {
		switch b.Type {
		case "output":
			src.outputs = append(src.outputs, b.Labels[0])
		case "variable":
			src.variables = append(src.variables, b.Labels[0])
		}
	}
	l.sources[dir] = src
	return src
}

// sourceText is how a message quotes a source attribute.
func sourceText(a *hcl.Attribute) string {
	if v, ds := a.Expr.Value(nil); !ds.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		return fmt.Sprintf("source = %q", v.AsString())
	}
	return "source"
}

// moduleFS is the module folder dir (relative to the root's) to read.
func (l *loader) moduleFS(dir string) (fs.FS, error) {
	if l.opts.FS != nil {
		if !fs.ValidPath(dir) {
			return nil, errors.New("only folders inside it can be read here")
		}
		return fs.Sub(l.opts.FS, dir)
	}
	return os.DirFS(filepath.Join(l.opts.Dir, filepath.FromSlash(dir))), nil
}

// statModule describes the module folder dir (relative to the root's).
func (l *loader) statModule(dir string) (fs.FileInfo, error) {
	if l.opts.FS != nil {
		return fs.Stat(l.opts.FS, dir)
	}
	return os.Stat(filepath.Join(l.opts.Dir, filepath.FromSlash(dir)))
}

// folderHint names the nearest existing folder to dir, when one is near.
func (l *loader) folderHint(dir string) string {
	// From the first folder of the path that does not exist, each is
	// replaced by its nearest sibling: ./persona/cto finds personas/cto.
	parts := strings.Split(path.Clean(dir), "/")
	at := "."
	for i := 0; i < len(parts); i++ {
		next := path.Join(at, parts[i])
		if parts[i] == ".." || parts[i] == "." {
			at = next
			continue
		}
		if fi, err := l.statModule(next); err == nil && fi.IsDir() {
			at = next
			continue
		}
		near := nearest(parts[i], l.subfolders(at), 1)
		if len(near) == 0 {
			return ""
		}
		at = path.Join(at, near[0])
	}
	if at == path.Clean(dir) {
		return ""
	}
	return fmt.Sprintf(" Did you mean %s?", at)
}

// subfolders are the folders in dir (hidden ones aside); none when it
// cannot be read.
func (l *loader) subfolders(dir string) []string {
	fsys, err := l.moduleFS(dir)
	if err != nil {
		return nil
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// assignInputs gives a module instance's variables the arguments of its
// call, evaluated where the call is (with its each or count). An error in
// a value points at the argument and names the instance (see
// noteInputs); an argument the module has no variable for is the call's
// text alone, reported once.
func (l *loader) assignInputs() {
	c := l.call
	callAddr := c.callAddr
	start := len(l.diags)
	defer func() { l.noteInputs(l.diags[start:]) }()
	for _, a := range c.inputs {
		v := l.vars[a.Name]
		if v == nil {
			hint := didYouMean(a.Name, c.src.variables)
			if hint == "" {
				hint = moduleVariablesHint(c.src)
			}
			l.errorf(a.NameRange.Ptr(), "Unsupported argument", "%s (%s) has no variable %q.%s", callAddr, c.src.dir, a.Name, hint)
			l.static(l.diags[len(l.diags)-1:])
			continue
		}
		val, sens, st := c.parent.value(a, c.in.ctx, c.in.sc)
		switch st {
		case absent:
			continue // null: not given, the default applies
		case bad:
			v.value, v.set, v.bad = cty.DynamicVal, false, true
			continue
		}
		if sens {
			v.sensitive = true
			l.collectSecrets(val)
		}
		l.setValue(v, val, c.sources[a.Name], a.Expr.Range().Ptr())
	}
	l.finishVariables(func(v *variable) {
		l.errorf(c.block.DefRange.Ptr(), "Missing argument for a module variable",
			"%s gives no value to the variable %q of its module (declared at %s without a default). Add %s = ... to the module block.",
			callAddr, v.name, shortRange(v.block.DefRange), v.name)
	})
}

// moduleVariablesHint lists a module's variables, for an argument it
// does not have.
func moduleVariablesHint(src *moduleSource) string {
	if len(src.variables) == 0 {
		return " The module declares no variables."
	}
	return " Its variables: " + strings.Join(src.variables, ", ") + "."
}

// rootOnly reports the blocks a module may not have: api and leadsync
// (with its backend) configure the whole run and live in the root.
func (l *loader) rootOnly(byType map[string]hcl.Blocks) {
	what := map[string]string{
		"api":      "An api block says which service to use and how",
		"leadsync": "A leadsync block (with its backend) says where the state lives",
	}
	for _, kind := range []string{"api", "leadsync"} {
		for _, b := range byType[kind] {
			l.errorf(b.DefRange.Ptr(), "Root-only block in a module",
				"%s for the whole run, so it belongs in the root configuration, not in a module (%s). Move it to the root's files.", what[kind], l.dir)
		}
	}
}

// noteModule adds to each diagnostic of ds that points into the files of
// the module instance child where it comes from, for the caller's
// mergeModuleNotes: the same mistake in every instance of a module is
// reported once, naming the instances.
func (l *loader) noteModule(ds hcl.Diagnostics, child *loader) {
	for _, d := range ds {
		if d.Subject != nil && path.Dir(d.Subject.Filename) == child.dir {
			l.noteInstance(d, child.call)
		}
	}
}

// noteInputs notes the diagnostics ds found while giving l's instance
// its inputs (a value of the wrong type, a failed validation, a missing
// argument) with that instance, for mergeModuleNotes: they point at the
// call site, outside the module's files where noteModule looks, and the
// instance's values are what made them. A call without for_each or
// count has one instance, named by the call the diagnostic points at.
func (l *loader) noteInputs(ds hcl.Diagnostics) {
	if l.call.addr == l.call.callAddr {
		return
	}
	for _, d := range ds {
		l.noteInstance(d, l.call)
	}
}

// noteInstance notes d as found in the instance c made, unless it is
// noted already (in a nested instance) or comes from the text alone.
func (l *loader) noteInstance(d *hcl.Diagnostic, c *callSite) {
	if _, done := l.diagModules[d]; done || l.staticDiags[d] {
		return
	}
	if l.diagModules == nil {
		l.diagModules = map[*hcl.Diagnostic]moduleNote{}
	}
	l.diagModules[d] = moduleNote{instance: c.addr, call: c.block.DefRange}
}

// static notes diagnostics that come from a module's text alone (a
// block's arguments, a variable's declaration), found once for every
// instance: they name no instance, only their file.
func (l *loader) static(ds hcl.Diagnostics) {
	for _, d := range ds {
		if l.staticDiags == nil {
			l.staticDiags = map[*hcl.Diagnostic]bool{}
		}
		l.staticDiags[d] = true
	}
}

// moduleNote is the module instance a diagnostic was found in.
type moduleNote struct {
	instance string
	call     hcl.Range
}

// mergeModuleNotes folds the diagnostics of module files that differ only
// by the instance they were found in into one, and says in which
// instances (and at which call) each was found.
func mergeModuleNotes(ds hcl.Diagnostics, notes map[*hcl.Diagnostic]moduleNote) hcl.Diagnostics {
	if len(notes) == 0 {
		return ds
	}
	type group struct {
		d         *hcl.Diagnostic
		instances []string
		call      hcl.Range
	}
	groups := map[string]*group{}
	out := ds[:0]
	for _, d := range ds {
		n, noted := notes[d]
		if !noted {
			out = append(out, d)
			continue
		}
		key := fmt.Sprintf("%d|%s|%s|%s", d.Severity, d.Summary, d.Detail, d.Subject.String())
		if g := groups[key]; g != nil {
			if !contains(g.instances, n.instance) {
				g.instances = append(g.instances, n.instance)
			}
			continue
		}
		groups[key] = &group{d: d, instances: []string{n.instance}, call: n.call}
		out = append(out, d)
	}
	for _, g := range groups {
		names := g.instances
		more := ""
		if len(names) > 3 {
			more = fmt.Sprintf(" and %d more", len(names)-3)
			names = names[:3]
		}
		g.d.Detail = strings.TrimRight(g.d.Detail, "\n") + fmt.Sprintf("\n\nIn %s%s (the module block at %s).", strings.Join(names, ", "), more, shortRange(g.call))
	}
	return out
}

// ModuleDirs lists the module folders the configuration in dir calls,
// nested calls included, each once, in the order they are found: what
// `leadsync fmt` formats besides dir. It reads only the module blocks'
// source (a literal local path, as Load requires); a file that does not
// parse, or a source that is not a local folder, is skipped here (Load
// and fmt itself say what is wrong with it).
func ModuleDirs(dir string) []string {
	seen := map[string]bool{filepath.Clean(dir): true}
	var out []string
	var walk func(d string)
	walk = func(d string) {
		names, _ := filepath.Glob(filepath.Join(d, "*"+ConfigSuffix))
		sort.Strings(names)
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil || CheckNesting(name, src) != nil {
				continue
			}
			f, ds := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
			if ds.HasErrors() {
				continue
			}
			content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "module", LabelNames: []string{"name"}}}})
			for _, b := range content.Blocks {
				attrs, _ := b.Body.JustAttributes()
				a := attrs["source"]
				if a == nil {
					continue
				}
				v, ds := a.Expr.Value(nil)
				if ds.HasErrors() || v.Type() != cty.String || v.IsNull() || !v.IsKnown() {
					continue
				}
				s := v.AsString()
				if !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
					continue
				}
				md := filepath.Clean(filepath.Join(d, filepath.FromSlash(s)))
				if seen[md] {
					continue
				}
				seen[md] = true
				if fi, err := os.Stat(md); err != nil || !fi.IsDir() {
					continue
				}
				out = append(out, md)
				walk(md)
			}
		}
	}
	walk(filepath.Clean(dir))
	return out
}
