package config

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// ConfigSuffix and VarsSuffix name the files Load reads from the directory.
const (
	ConfigSuffix = ".leads.hcl"
	VarsSuffix   = ".auto.leadvars.hcl"
	// EnvVarPrefix prefixes environment variables that set variables.
	EnvVarPrefix = "LEADSYNC_VAR_"
)

// LoadOptions say where a configuration and its variable values come from.
type LoadOptions struct {
	// Dir is the configuration directory.
	Dir string
	// Vars are "name=value" pairs from --var, in order (later wins).
	Vars []string
	// VarFiles are paths from --var-file, in order, relative to Dir unless
	// absolute.
	VarFiles []string
	// Environ is the environment in os.Environ form; LEADSYNC_VAR_name
	// entries set variables, and a backend's checks read what they need
	// (the pg backend checks the form of LEADSYNC_PG_CONN_STR when its
	// block has no conn_str).
	Environ []string
	// Catalog is the field catalog filters are checked against; nil means
	// catalog.Default().
	Catalog *catalog.Catalog
	// FS, when set, is read instead of the directory on disk (tests, fuzzing);
	// names in it are relative to Dir.
	FS fs.FS
	// Workspace is the workspace in use, leadsync.workspace in
	// expressions; "" means "default".
	Workspace string
	// SkipListFiles leaves the files of exclude blocks unread (their
	// lists are then empty, and Hash does not cover them): for commands
	// that need only where the state is, and for shell completion, which
	// runs on every key press.
	SkipListFiles bool
}

// Load reads every *.leads.hcl of opts.Dir as one configuration, resolves
// variables and locals, expands for_each and count, and checks every rule
// that needs no call. It returns all problems at once. The Config is never
// nil and has Files set even when there are errors, so that the caller can
// render the diagnostics with source snippets (use DiagFiles for that).
func Load(opts LoadOptions) (*Config, hcl.Diagnostics) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = os.DirFS(opts.Dir)
	}
	cat := opts.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	l := &loader{
		shared: &shared{
			opts:          opts,
			fsys:          fsys,
			work:          newWork(),
			parser:        hclparse.NewParser(),
			cat:           cat,
			secrets:       map[string]bool{},
			exportPaths:   map[string]string{},
			sources:       map[string]*moduleSource{},
			contents:      map[*hcl.Block]decoded{},
			varDecls:      map[*hcl.Block]*variable{},
			names:         map[string]bool{},
			unique:        map[*hcl.Block]bool{},
			declared:      map[nameKey]hcl.Range{},
			paths:         map[string]cty.Value{},
			folderCtx:     map[string]*hcl.EvalContext{},
			refsChecked:   map[refsKey]hcl.Diagnostics{},
			staticOutputs: map[*hcl.Attribute][]declRef{},
			cfg: &Config{
				Dir:       opts.Dir,
				Workspace: opts.Workspace,
				Files:     map[string]*hcl.File{},
				Variables: map[string]*Variable{},
				Catalog:   cat,
				refs:      &refCache{},
			},
		},
	}
	l.initModule(".", "")
	// file() and fileexists() read through an os.Root: a symbolic link
	// inside the folder that points outside it is refused like "../x". The
	// configuration files themselves may be links (a shared file).
	funcFS := fsys
	if opts.FS == nil {
		funcFS = rootFS(opts.Dir)
	}
	l.funcs = l.work.metered(functions(funcFS, opts.Dir))
	l.listFS = funcFS
	l.load()
	l.add(nil) // the work spent under try or can, if nothing reported it
	if l.work.spent && !l.work.reported {
		l.work.reported = true
		l.errorf(l.firstFileStart(), "Expression too costly to evaluate", "%s", workDetail())
	}
	l.work.finish()
	l.cfg.secretRanges = l.secretRanges
	for s := range l.secrets {
		l.cfg.secretValues = append(l.cfg.secretValues, s)
	}
	sort.Slice(l.cfg.secretValues, func(i, j int) bool { return len(l.cfg.secretValues[i]) > len(l.cfg.secretValues[j]) })
	l.cfg.Hash = l.hash()
	l.diags = dedupe(mergeModuleNotes(l.diags, l.diagModules))
	sortDiagnostics(l.diags)
	return l.cfg, l.diags
}

// rootFS reads the folder it names through an os.Root opened per call,
// so that nothing stays open once the configuration is loaded (file() may
// be evaluated later, in a where expression): a name that leaves the
// folder, by ".." or by a symbolic link, fails.
type rootFS string

func (d rootFS) Open(name string) (fs.File, error) {
	root, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.FS().Open(name)
}

// loader reads one module of the configuration: the root, or one
// instance of a module call. What the whole configuration shares (the
// Config being built, the diagnostics, the files, the secrets) is in
// shared; what belongs to one module (its variables, locals, blocks and
// evaluation context) is here, made again for every module instance.
type loader struct {
	*shared

	// dir is the module's folder relative to the root's ("." for the
	// root), with forward slashes: path.module.
	dir string
	// prefix is the module path of the instance with a trailing dot
	// (module.dach["de"].), "" in the root: every address the module
	// declares starts with it.
	prefix string
	// module is the same module path, typed: the steps of the addresses
	// the module declares (address.Address.Module), none in the root.
	module []address.Step
	// call is the module call that made this instance; nil in the root.
	call *callSite

	varOrder   []string
	vars       map[string]*variable
	localOrder []string
	locals     map[string]*local
	// blocks are search and profile blocks by "search.cto", for from-references.
	blocks map[string]*blockInfo
	// named are the names of this module's blocks of each kind referred
	// to by name (blockKinds' byName: enrich and track blocks), for the
	// references of its outputs and track blocks.
	named map[kind.Kind]map[string]bool
	// calls are the module calls of this module by name, for references
	// to their outputs.
	calls map[string]*moduleCall
	// outputs are this module's outputs: the addresses each one gives
	// (see output.go).
	outputs []output

	base *hcl.EvalContext // var, local, leadsync, path and functions
	skip map[*hcl.Block]bool
}

// shared is what every module of one Load shares.
type shared struct {
	opts   LoadOptions
	fsys   fs.FS
	parser *hclparse.Parser
	// unreadable is set when a file was refused before parsing (nested
	// too deeply): what it declares is unknown, so its absence is not
	// reported as missing blocks.
	unreadable bool
	cat        *catalog.Catalog
	funcs      map[string]function.Function
	// work counts what evaluating the configuration costs (work.go).
	work *work
	// listFS is where exclude and import blocks read their files: the
	// folder through its os.Root, as file() reads.
	listFS fs.FS
	cfg    *Config
	diags  hcl.Diagnostics

	// configFiles are the names of the *.leads.hcl files read, the root's
	// sorted, then each module folder's, as they were first called.
	configFiles []string
	// configBytes and nblocks add up the files read, for the limits.
	configBytes int64
	nblocks     int
	// secretRanges hold sensitive literals in source files; masked when
	// diagnostics show snippets.
	secretRanges []hcl.Range
	// secrets are sensitive values, scrubbed from any message.
	secrets map[string]bool
	// usesWorkspace is set when an expression reads leadsync.workspace:
	// the workspace then enters the configuration's hash.
	usesWorkspace bool
	// exportPaths maps each export path (cleaned) to the export that
	// writes it, across modules.
	exportPaths map[string]string
	// sources are the module folders read, by folder.
	sources map[string]*moduleSource
	// instances counts the search, profile and module instances made so
	// far, against MaxInstances.
	instances int
	// diagModules are the diagnostics found in module files, with the
	// instance each was found in (see mergeModuleNotes).
	diagModules map[*hcl.Diagnostic]moduleNote
	// staticDiags are the diagnostics of a module's text alone (see
	// static): noted with no instance.
	staticDiags map[*hcl.Diagnostic]bool

	// What does not change from one module instance to the next, worked
	// out once: each block's decoded body, the search schema, the
	// variable declarations of each module folder, the checked names, the
	// path object of each folder.
	contents     map[*hcl.Block]decoded
	searchSchema *hcl.BodySchema
	varDecls     map[*hcl.Block]*variable
	names        map[string]bool
	unique       map[*hcl.Block]bool
	declared     map[nameKey]hcl.Range
	paths        map[string]cty.Value
	folderCtx    map[string]*hcl.EvalContext
	catAttrs     []string
	refsChecked  map[refsKey]hcl.Diagnostics
	// trackSources are the sources of every track, checked for people once
	// every module is read (checkTracks).
	trackSources []trackSource
	// staticOutputs are the outputs that give the same blocks in every
	// instance, relative to the module (see outputValue).
	staticOutputs map[*hcl.Attribute][]declRef
	workspaceVal  cty.Value
	// marked is set once a value is marked sensitive: until then no value
	// can hold a mark, and evaluations skip looking for one.
	marked bool

	apiBlock      *hcl.Block
	apiGeneration *hcl.Attribute
	apiTimeout    *hcl.Attribute   // api { timeout }, checked against the searches
	retention     *hcl.Attribute   // leadsync { retention }, for the refresh check
	rawAttrs      []*hcl.Attribute // raw = true, checked against the generation
}

// modulePath is l's module instance address, "" in the root.
func (l *loader) modulePath() string { return strings.TrimSuffix(l.prefix, ".") }

// initModule gives l the empty maps of one module, in folder dir, with
// the address prefix of its instance.
func (l *loader) initModule(dir, prefix string) {
	l.dir, l.prefix = dir, prefix
	// The maps that a module often leaves empty (locals, module calls,
	// enrich blocks, outputs, skipped blocks) are made when first written.
	l.vars = map[string]*variable{}
	l.blocks = map[string]*blockInfo{}
}

// blockInfo is what from-references need to know about a search or profile block.
type blockInfo struct {
	kind, name string
	rng        hcl.Range
	mode       instanceMode
	keys       map[string]bool // for_each keys; count indexes as decimal strings
	expanded   bool            // keys are known (the expansion succeeded)
}

// instanceMode says how a block is repeated.
type instanceMode int

const (
	single instanceMode = iota
	forEach
	countMode
)

func (m instanceMode) String() string {
	switch m {
	case forEach:
		return "for_each"
	case countMode:
		return "count"
	}
	return "single"
}

func (l *loader) errorf(rng *hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng}
	l.diags = append(l.diags, d)
	return d
}

func (l *loader) warnf(rng *hcl.Range, summary, format string, args ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng})
}

func (l *loader) add(ds hcl.Diagnostics) bool {
	ds, spent := l.work.workDiagnostics(ds)
	l.diags = append(l.diags, ds...)
	return !ds.HasErrors() && !spent
}

var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "leadsync"},
		{Type: "api"},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "search", LabelNames: []string{"name"}},
		{Type: "profile", LabelNames: []string{"name"}},
		{Type: "enrich", LabelNames: []string{"name"}},
		{Type: "track", LabelNames: []string{"name"}},
		{Type: "export", LabelNames: []string{"name"}},
		{Type: "exclude", LabelNames: []string{"name"}},
		{Type: "import", LabelNames: []string{"name"}},
		{Type: "module", LabelNames: []string{"name"}},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "moved"},
		// Only to say where it belongs: inside the root's leadsync block.
		{Type: "backend", LabelNames: []string{"type"}},
	},
}

func (l *loader) load() {
	names, err := fs.Glob(l.fsys, "*"+ConfigSuffix)
	if err != nil || len(names) == 0 {
		dir := l.opts.Dir
		if dir == "" {
			dir = "."
		}
		detail := fmt.Sprintf("leadsync reads every *%s file of the working directory as one configuration, and %s has none. Create one (see examples/quickstart), or point --chdir at the directory that has them.", ConfigSuffix, dir)
		// HCL files with another suffix (main.hcl, from Terraform habits)
		// are most likely meant as configuration: say how to name them.
		if other, _ := fs.Glob(l.fsys, "*.hcl"); len(other) > 0 {
			var cands []string
			for _, n := range other {
				if !strings.HasSuffix(n, ".leadvars.hcl") {
					cands = append(cands, n)
				}
			}
			if len(cands) > 0 {
				sort.Strings(cands)
				first := cands[0]
				detail = fmt.Sprintf("%s has %s, but leadsync reads only files whose names end in %s. Rename it: mv %s %s", dir, strings.Join(cands, ", "), ConfigSuffix, first, strings.TrimSuffix(first, ".hcl")+ConfigSuffix)
			}
		}
		l.errorf(nil, "No configuration files", "%s", detail)
		return
	}
	sort.Strings(names)
	blocks, ok := l.readFiles(l.fsys, ".", names)
	if !ok {
		return
	}
	l.loadBody(byType(blocks))
	sortInstances(l.cfg)
	l.checkTracks()
	l.checkExportFiles()
	l.crossChecks()
	l.retentionCheck()
	l.rawColumnCheck()
	l.profileLinkCheck()
	l.checkMoves()
}

// readFiles parses the configuration files names of fsys, the folder dir
// of the configuration ("." for the root), and returns their top-level
// blocks in file order. It reports false when the files cannot be read
// as a whole (too large, too many blocks): then nothing of them is used.
func (l *loader) readFiles(fsys fs.FS, dir string, names []string) (hcl.Blocks, bool) {
	if !l.configSize(fsys, dir, names) {
		l.unreadable = true
		return nil, false
	}
	var blocks hcl.Blocks
	for _, base := range names {
		name := path.Join(dir, base)
		src, err := fs.ReadFile(fsys, base)
		if err != nil {
			l.errorf(nil, "Cannot read configuration file", "Reading %s: %v.", name, err)
			continue
		}
		if d := CheckNesting(name, src); d != nil {
			l.add(hcl.Diagnostics{d})
			l.unreadable = true
			continue
		}
		f, ds := l.parser.ParseHCL(src, name)
		l.add(unclosedQuote(src, ds))
		if f == nil {
			continue
		}
		l.work.meter(f)
		l.cfg.Files[name] = f
		l.configFiles = append(l.configFiles, name)
		if !l.blockCount(f) {
			l.unreadable = true
			return nil, false
		}
		content, ds := f.Body.Content(topSchema)
		l.add(ds)
		blocks = append(blocks, content.Blocks...)
	}
	return blocks, true
}

// byType groups blocks by type, each group in file order.
func byType(blocks hcl.Blocks) map[string]hcl.Blocks {
	out := map[string]hcl.Blocks{}
	for _, b := range blocks {
		out[b.Type] = append(out[b.Type], b)
	}
	return out
}

// loadBody decodes the top-level blocks of one module (the root, or one
// instance of a module call): variables, locals, then the blocks that
// depend on them, in an order where every reference is declared first.
func (l *loader) loadBody(byType map[string]hcl.Blocks) {
	for _, b := range byType["backend"] {
		where := "the leadsync block of the root configuration: leadsync { backend \"" + b.Labels[0] + "\" { ... } }"
		if l.call != nil {
			where += ", not in a module (" + l.dir + "): the state's place is the whole run's"
		}
		l.errorf(b.DefRange.Ptr(), "Misplaced backend block", "A backend block belongs in %s. Move it there.", where)
	}
	l.declareVariables(byType["variable"])
	if l.call == nil {
		l.assignVariables()
	} else {
		l.assignInputs()
	}
	l.declareLocals(byType["locals"])
	l.evalLocals()
	l.base = l.evalContext(nil)
	if l.call == nil {
		l.cfg.evalCtx = l.base
		l.decodeSettings(byType["leadsync"])
		l.decodeAPI(byType["api"], len(byType) > 0)
	} else {
		l.rootOnly(byType)
	}
	l.declareInstances(byType[string(kind.Search)], byType[string(kind.Profile)])
	l.declareImports(byType[string(kind.Import)])
	for _, b := range byType[string(kind.Search)] {
		l.decodeSearch(b)
	}
	for _, b := range byType[string(kind.Profile)] {
		l.decodeProfile(b)
	}
	for _, b := range byType[string(kind.Import)] {
		l.decodeImport(b)
	}
	l.loadModules(byType["module"])
	for _, b := range byType[string(kind.Enrich)] {
		if l.uniqueName(b) {
			l.declareNamed(kind.Enrich, b.Labels[0])
			l.decodeEnrich(b)
		}
	}
	for _, b := range byType[string(kind.Track)] {
		if l.uniqueName(b) {
			l.declareNamed(kind.Track, b.Labels[0])
			l.decodeTrack(b)
		}
	}
	for _, b := range byType[string(kind.Exclude)] {
		if l.uniqueName(b) {
			l.decodeExclude(b)
		}
	}
	for _, b := range byType[string(kind.Export)] {
		if l.uniqueName(b) {
			l.decodeExport(b, l.exportPaths)
		}
	}
	l.decodeMoved(byType["moved"])
	l.decodeOutputs(byType["output"])
}

// retentionCheck warns when retention would empty searches: people are
// kept while a search sees them, so a search that never runs again (no
// refresh, or a refresh at least as long as the retention) loses its people
// to retention. A warning: that may be what the user wants.
func (l *loader) retentionCheck() {
	r := l.cfg.Settings.Retention
	if r <= 0 || l.retention == nil {
		return
	}
	var blocks []string
	seen := map[string]bool{}
	for _, s := range l.cfg.Searches {
		if (s.Refresh == 0 || s.Refresh >= r) && !seen[s.Block] {
			seen[s.Block] = true
			blocks = append(blocks, s.Block)
		}
	}
	if len(blocks) == 0 {
		return
	}
	l.warnf(l.retention.Expr.Range().Ptr(), "Searches that do not run again lose their people to retention",
		"People leave the state once no search has seen them for %s, and %s never run again before that (no refresh, or a refresh as long). Set refresh shorter than the retention on them (refresh = \"30d\"), or leave it so if their people should go.",
		days(r), strings.Join(blocks, ", "))
}

// days writes a duration of whole days as configured ("180d").
func days(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return FormatDuration(d)
}

// uniqueName checks a block's label: a valid identifier, not used before by
// another block of the same type. The answer depends on the module's text
// alone: a module's blocks are checked (and their problems reported) in
// its first instance, and the answer is kept for the others.
func (l *loader) uniqueName(b *hcl.Block) bool {
	if ok, checked := l.unique[b]; checked {
		return ok
	}
	start := len(l.diags)
	ok := l.checkName(b)
	l.unique[b] = ok
	l.static(l.diags[start:])
	return ok
}

func (l *loader) checkName(b *hcl.Block) bool {
	name := b.Labels[0]
	valid, checked := l.names[name]
	if !checked {
		valid = validIdentifier(name)
		l.names[name] = valid
	}
	if !valid {
		l.errorf(&b.LabelRanges[0], fmt.Sprintf("Invalid %s name", b.Type),
			"%q cannot be referenced as %s.%s: a name starts with a letter and has only letters, digits, underscores and dashes.", name, b.Type, name)
		return false
	}
	k := nameKey{l.dir, b.Type, name}
	if prev, ok := l.declared[k]; ok {
		l.errorf(&b.LabelRanges[0], fmt.Sprintf("Duplicate %s block", b.Type),
			"%s block named %q is already declared at %s. Names are unique within each block type; rename one of them.", capitalize(textfmt.WithArticle(b.Type)), name, shortRange(prev))
		return false
	}
	l.declared[k] = b.DefRange
	return true
}

// nameKey is a block's name in a module folder ("." for the root): names
// are unique by folder and block type.
type nameKey struct{ dir, typ, name string }

// capitalize makes the first letter of s upper case (ASCII).
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

func shortRange(r hcl.Range) string {
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}

// sortDiagnostics orders diagnostics by file and position; diagnostics
// without a place come first. The order is stable for equal positions.
func sortDiagnostics(ds hcl.Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Subject, ds[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		case a.Start.Line != b.Start.Line:
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
}

// evalContext builds the context of var, local and the functions, plus
// extra variables (each, count, lead) when given.
func (l *loader) evalContext(extra map[string]cty.Value) *hcl.EvalContext {
	if l.base != nil {
		if extra == nil {
			return l.base
		}
		child := l.base.NewChild()
		child.Variables = extra
		return child
	}
	vars := map[string]cty.Value{}
	for name, v := range l.vars {
		vars[name] = v.value
	}
	locals := cty.EmptyObjectVal
	if len(l.locals) > 0 {
		m := make(map[string]cty.Value, len(l.locals))
		for name, lo := range l.locals {
			m[name] = lo.value
		}
		locals = cty.ObjectVal(m)
	}
	// What is the same in every module instance of the folder (leadsync,
	// path, the functions) sits in a context of the folder, read through.
	ctx := l.folderContext().NewChild()
	ctx.Functions = l.funcs
	ctx.Variables = make(map[string]cty.Value, 2+len(extra))
	ctx.Variables["var"], ctx.Variables["local"] = cty.ObjectVal(vars), locals
	for k, v := range extra {
		ctx.Variables[k] = v
	}
	return ctx
}

// folderContext is the evaluation context of l's folder: leadsync, path
// and the functions, made once per folder.
func (l *loader) folderContext() *hcl.EvalContext {
	if ctx := l.folderCtx[l.dir]; ctx != nil {
		return ctx
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"leadsync": l.leadsyncValue(), "path": l.pathValue()},
		Functions: l.funcs,
	}
	l.folderCtx[l.dir] = ctx
	return ctx
}

// leadsyncValue is the leadsync object of expressions: leadsync.workspace,
// the workspace in use.
func (l *loader) leadsyncValue() cty.Value {
	if l.workspaceVal == cty.NilVal {
		l.workspaceVal = l.newLeadsyncValue()
	}
	return l.workspaceVal
}

func (l *loader) newLeadsyncValue() cty.Value {
	ws := l.opts.Workspace
	if ws == "" {
		ws = DefaultWorkspace
	}
	return cty.ObjectVal(map[string]cty.Value{"workspace": cty.StringVal(ws)})
}

// pathValue is the path object of expressions, as in Terraform:
// path.module is the folder of the module the expression is in, path.root
// the root's, both relative to the root (export paths and file() are).
func (l *loader) pathValue() cty.Value {
	if v, ok := l.paths[l.dir]; ok {
		return v
	}
	v := cty.ObjectVal(map[string]cty.Value{"module": cty.StringVal(l.dir), "root": cty.StringVal(".")})
	l.paths[l.dir] = v
	return v
}

// PathAttributes are the attributes of the path object in expressions.
var PathAttributes = []string{"module", "root"}

// LeadsyncAttributes are the attributes of the leadsync object in
// expressions.
var LeadsyncAttributes = []string{"workspace"}

// DefaultWorkspace is leadsync.workspace when no workspace is chosen.
const DefaultWorkspace = "default"

// dedupe drops repeated diagnostics: a mistake in a block with for_each is
// reported once, not once per instance.
func dedupe(ds hcl.Diagnostics) hcl.Diagnostics {
	seen := map[string]bool{}
	out := ds[:0]
	for _, d := range ds {
		key := fmt.Sprintf("%d|%s|%s", d.Severity, d.Summary, d.Detail)
		if d.Subject != nil {
			key += "|" + d.Subject.String()
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	return out
}

// firstFileStart is where whole-configuration problems point: the start of
// the first file.
func (l *loader) firstFileStart() *hcl.Range {
	if len(l.configFiles) == 0 {
		return nil
	}
	return &hcl.Range{Filename: l.configFiles[0], Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 1, Byte: 0}}
}
