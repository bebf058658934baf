package config

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/state/pg"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// maxCount bounds count and for_each: every instance is at least one call,
// and 10,000 searches take almost three hours at the service's 1 call/s.
const maxCount = 10000

var settingsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "state_path"}, {Name: "profile_url_template"}, {Name: "retention"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "backend", LabelNames: []string{"type"}}}}

var pgBackendSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "conn_str"}, {Name: "schema_name"},
}}

// decodeBackend reads a backend "pg" block.
func (l *loader) decodeBackend(blocks hcl.Blocks) {
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate backend block", "There is already a backend block at %s; a configuration has one state backend.", shortRange(blocks[0].DefRange))
			continue
		}
		if b.Labels[0] != "pg" {
			l.errorf(b.LabelRanges[0].Ptr(), "Unsupported backend", "The backend %q is not supported; use backend \"pg\" (PostgreSQL), or remove the block for the local state file.", b.Labels[0])
			continue
		}
		be := &Backend{Type: "pg", SchemaName: pg.DefaultSchema, DeclRange: b.DefRange}
		content, ds := b.Body.Content(pgBackendSchema)
		l.add(ds)
		if a := content.Attributes["conn_str"]; a != nil {
			literal := len(a.Expr.Variables()) == 0
			if literal {
				l.secretRange(a.Expr)
			}
			if s, sens, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
				l.secrets[s] = true
				if err := pg.CheckConnStr(s); err != nil {
					l.errorf(a.Expr.Range().Ptr(), "Invalid conn_str", "%s. Give a PostgreSQL URL like \"postgres://user@db.example.com/leads\" or key=value pairs like \"host=db.example.com dbname=leads\".", err)
				} else {
					be.ConnStr = s
				}
				hasPassword := strings.Contains(strings.ToLower(s), "password") || regexpURLPassword.MatchString(s)
				if literal && hasPassword {
					l.warnf(a.NameRange.Ptr(), "Database password written in the configuration",
						"Anyone who can read these files can use the database. Leave conn_str out and set LEADSYNC_PG_CONN_STR, or use a variable with sensitive = true given with LEADSYNC_VAR_<name>.")
				} else if !literal && !sens && hasPassword {
					l.warnf(a.Expr.Range().Ptr(), "Connection string from a variable that is not sensitive",
						"Mark the variable with sensitive = true so that its value never appears in output.")
				}
			}
			be.ConnStrRange = a.Expr.Range().Ptr()
		}
		if content.Attributes["conn_str"] == nil {
			l.checkEnvConnStr()
		}
		if a := content.Attributes["schema_name"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
				if err := pg.CheckSchemaName(s); err != nil {
					l.errorf(a.Expr.Range().Ptr(), "Invalid schema_name", "%s.", err)
				} else {
					be.SchemaName = s
				}
			}
		}
		l.cfg.Settings.Backend = be
	}
}

// checkEnvConnStr checks the form of LEADSYNC_PG_CONN_STR, the connection
// string of a backend "pg" block without conn_str, when it is set (without
// connecting: validate is offline). Unset, the command that opens the
// state says so.
func (l *loader) checkEnvConnStr() {
	s := envValue(l.opts.Environ, EnvPGConnStr)
	if s == "" {
		return
	}
	l.secrets[s] = true
	if err := pg.CheckConnStr(s); err != nil {
		l.errorf(nil, "Invalid "+EnvPGConnStr, "The backend \"pg\" block has no conn_str, so the connection string comes from the environment variable %s: %s. Give a PostgreSQL URL like \"postgres://user@db.example.com/leads\" or key=value pairs like \"host=db.example.com dbname=leads\".", EnvPGConnStr, err)
	}
}

// envValue is the value of the variable name in environ (os.Environ form;
// the first wins, as with os.Getenv), "" when unset.
func envValue(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// regexpURLPassword finds the password of a postgres:// URL.
var regexpURLPassword = regexp.MustCompile(`^postgres(ql)?://[^:/@\s]*:[^@\s]+@`)

func (l *loader) decodeSettings(blocks hcl.Blocks) {
	l.cfg.Settings.StatePath = DefaultStatePath
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate leadsync block", "There is already a leadsync block at %s; merge the two.", shortRange(blocks[0].DefRange))
			continue
		}
		content, ds := b.Body.Content(settingsSchema)
		l.add(ds)
		l.decodeBackend(content.Blocks.OfType("backend"))
		if a := content.Attributes["state_path"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, false); astate == ok {
				if strings.TrimSpace(s) == "" {
					l.errorf(a.Expr.Range().Ptr(), "Invalid state_path", "state_path must not be empty; remove it for the default %s.", DefaultStatePath)
				} else {
					l.cfg.Settings.StatePath = s
				}
			}
		}
		if d, astate := l.durationAttr(content.Attributes["retention"], l.base, scope{}); astate == ok {
			l.cfg.Settings.Retention = d
			l.retention = content.Attributes["retention"]
		}
		if a := content.Attributes["profile_url_template"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, false); astate == ok {
				if !strings.Contains(s, "{pageName}") {
					l.errorf(a.Expr.Range().Ptr(), "Invalid profile_url_template", "profile_url_template must contain {pageName}, which is replaced by each person's page name, like \"https://network.example/profile/{pageName}\".")
				} else if u, err := url.Parse(strings.ReplaceAll(s, "{pageName}", "x")); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
					l.errorf(a.Expr.Range().Ptr(), "Invalid profile_url_template", "profile_url_template must be an absolute http(s) URL, like \"https://network.example/profile/{pageName}\".")
				} else {
					l.cfg.Settings.ProfileURLTemplate = s
				}
			}
		}
	}
}

var apiSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "base_url"}, {Name: "base_url_v2"}, {Name: "api_key"}, {Name: "generation"},
	{Name: "rate_limit"}, {Name: "parallelism"}, {Name: "timeout"}, {Name: "credits_per_enrich"},
	{Name: "max_credits"}, {Name: "min_remaining_requests"}, {Name: "sandbox"},
}}

func (l *loader) decodeAPI(blocks hcl.Blocks, _ bool) {
	a := &l.cfg.API
	*a = API{
		Generation: api.Gen1, RateLimit: 1, Parallelism: api.DefaultParallelism, Timeout: 90e9,
		CreditsPerEnrich: 1, MaxCredits: 500, MinRemainingRequests: 100,
	}
	if len(blocks) == 0 {
		if !l.unreadable {
			rng := l.firstFileStart()
			l.errorf(rng, "Missing api block",
				"leadsync needs an api block that says which service to use: api { base_url = \"https://...\" }, or api { sandbox = true } for the built-in stand-in (no key needed).")
		}
		return
	}
	for _, b := range blocks[1:] {
		l.errorf(b.DefRange.Ptr(), "Duplicate api block", "There is already an api block at %s; merge the two.", shortRange(blocks[0].DefRange))
	}
	b := blocks[0]
	a.DeclRange = b.DefRange
	l.apiBlock = b
	content, ds := b.Body.Content(apiSchema)
	l.add(ds)
	at := content.Attributes
	sc := scope{}
	if v, astate := l.boolAttr(at["sandbox"], l.base, sc); astate == ok {
		a.Sandbox = v
	}
	for _, name := range []string{"base_url", "base_url_v2"} {
		attr := at[name]
		s, _, astate := l.stringAttr(attr, l.base, sc, true)
		if astate != ok {
			continue
		}
		err := CheckBaseURL(s)
		if err == nil {
			err = CheckBasePath(s, name == "base_url_v2")
		}
		if err != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Invalid "+name, "%s: %s.", name, err)
			continue
		}
		if name == "base_url" {
			a.BaseURL = strings.TrimSuffix(s, "/")
		} else {
			a.BaseURLV2 = strings.TrimSuffix(s, "/")
		}
	}
	if at["base_url"] == nil && !a.Sandbox {
		l.errorf(b.DefRange.Ptr(), "Missing base_url",
			"The api block needs base_url, the address of the service's first generation (like \"https://api.example.com\"), unless sandbox = true.")
	}
	if attr := at["api_key"]; attr != nil {
		if len(attr.Expr.Variables()) == 0 {
			l.secretRange(attr.Expr)
			l.warnf(attr.NameRange.Ptr(), "API key written in the configuration",
				"Anyone who can read these files can use the key. Declare a variable with sensitive = true and give it with LEADSYNC_VAR_<name>, or leave api_key out and set LEADSYNC_API_KEY.")
		}
		if s, sens, astate := l.stringAttr(attr, l.base, sc, true); astate == ok {
			a.APIKey = s
			l.secrets[s] = true
			if !sens && len(attr.Expr.Variables()) > 0 {
				l.warnf(attr.Expr.Range().Ptr(), "API key from a variable that is not sensitive",
					"Mark the variable with sensitive = true so that its value never appears in output.")
			}
		}
	}
	if n, astate := l.intAttr(at["generation"], l.base, sc, 1, 2); astate == ok {
		a.Generation = api.Generation(n)
	}
	l.apiGeneration = at["generation"]
	if f, astate := l.numberAttr(at["rate_limit"], l.base, sc, false); astate == ok {
		a.RateLimit = f
		if f > 1 {
			l.warnf(at["rate_limit"].Expr.Range().Ptr(), "Rate limit above the service's",
				"The service allows 1 call per second; faster calls get status 429 and are retried, which costs time, not calls.")
		}
	}
	if n, astate := l.intAttr(at["parallelism"], l.base, sc, 1, 64); astate == ok {
		a.Parallelism = n
	}
	if d, astate := l.durationAttr(at["timeout"], l.base, sc); astate == ok {
		a.Timeout = d
		l.apiTimeout = at["timeout"]
	}
	if n, astate := l.intAttr(at["credits_per_enrich"], l.base, sc, 1, -1); astate == ok {
		a.CreditsPerEnrich = n
	}
	if n, astate := l.intAttr(at["max_credits"], l.base, sc, 1, -1); astate == ok {
		a.MaxCredits = n
	}
	if n, astate := l.intAttr(at["min_remaining_requests"], l.base, sc, 0, -1); astate == ok {
		a.MinRemainingRequests = n
	}
}

// firstFileStart is where whole-configuration problems point: the start of
// the first file.
func (l *loader) firstFileStart() *hcl.Range {
	if len(l.configFiles) == 0 {
		return nil
	}
	return &hcl.Range{Filename: l.configFiles[0], Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 1, Byte: 0}}
}

// fixed search attributes besides the catalog's filters.
var searchFixed = []string{"for_each", "count", "keywords", "search_url", "raw", "max_results", "refresh", "split_by"}

func (l *loader) searchSchema() (*hcl.BodySchema, []string) {
	names := append([]string{}, searchFixed...)
	for _, f := range l.cat.Fields {
		n := catalog.AttributeName(f.SearchParameter)
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	s := &hcl.BodySchema{}
	for _, n := range names {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s, names
}

// content decodes a block body, reporting unknown attributes with the
// nearest known name.
func (l *loader) content(b *hcl.Block, schema *hcl.BodySchema, what string) *hcl.BodyContent {
	content, remain, ds := b.Body.PartialContent(schema)
	l.add(ds)
	attrs, ds := remain.JustAttributes()
	l.add(ds)
	var known []string
	for _, a := range schema.Attributes {
		known = append(known, a.Name)
	}
	for _, a := range sortedAttrs(attrs) {
		hint := didYouMean(a.Name, known)
		if hint == "" {
			hint = fmt.Sprintf(" %s takes %s.", what, strings.Join(known, ", "))
		}
		l.errorf(a.NameRange.Ptr(), "Unsupported argument", "%s has no argument %q.%s", what, a.Name, hint)
	}
	return content
}

// instance is one expansion of a search or profile block.
type instance struct {
	addr string
	ctx  *hcl.EvalContext
	sc   scope
}

// expand evaluates for_each or count of a block and returns its instances.
func (l *loader) expand(b *hcl.Block, content *hcl.BodyContent, info *blockInfo) []instance {
	block := b.Type + "." + b.Labels[0]
	fe, cnt := content.Attributes["for_each"], content.Attributes["count"]
	if fe != nil && cnt != nil {
		l.errorf(cnt.NameRange.Ptr(), "Both for_each and count", "A block is repeated by for_each or by count, not both; remove one.")
		return nil
	}
	switch {
	case fe != nil:
		info.mode = forEach
		v, sens, astate := l.value(fe, l.base, scope{})
		if astate == absent {
			l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each is null; give it a map or a set of strings.")
		}
		if astate != ok {
			return nil
		}
		if sens {
			l.errorf(fe.Expr.Range().Ptr(), "Sensitive value in for_each", "for_each cannot use a sensitive value: its keys appear in addresses, plans and state.")
			return nil
		}
		ty := v.Type()
		type kv struct {
			key string
			val cty.Value
		}
		var items []kv
		switch {
		case ty.IsMapType() || ty.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				items = append(items, kv{k.AsString(), e})
			}
		case ty.IsSetType() && ty.ElementType() == cty.DynamicPseudoType && v.IsKnown() && v.LengthInt() == 0:
			// An empty literal set, toset([]): its elements have no type
			// because it has none. Zero instances, as in Terraform.
		case ty.IsSetType():
			if ty.ElementType() != cty.String {
				l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings; this set holds %s values.", typeName(ty.ElementType()))
				return nil
			}
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if e.IsNull() {
					l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "The set given to for_each contains null.")
					return nil
				}
				items = append(items, kv{e.AsString(), e})
			}
		case ty.IsListType() || ty.IsTupleType():
			l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings, and this is a %s. Convert it with toset(...), like for_each = toset(var.cities).", typeName(ty))
			return nil
		default:
			l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings; got %s.", typeName(ty))
			return nil
		}
		if len(items) > maxCount {
			l.errorf(fe.Expr.Range().Ptr(), "Too many instances", "for_each gives %d instances; at most %d are allowed.", len(items), maxCount)
			return nil
		}
		info.expanded = true
		var out []instance
		for _, it := range items {
			info.keys[it.key] = true
			out = append(out, instance{
				addr: fmt.Sprintf("%s[%s]", block, strconv.Quote(it.key)),
				ctx:  l.evalContext(map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(it.key), "value": it.val})}),
				sc:   scope{each: true},
			})
		}
		return out
	case cnt != nil:
		info.mode = countMode
		n, astate := l.intAttr(cnt, l.base, scope{}, 0, maxCount)
		if astate == absent {
			l.errorf(cnt.Expr.Range().Ptr(), "Invalid count", "count is null; give it a whole number.")
		}
		if astate != ok {
			return nil
		}
		info.expanded = true
		var out []instance
		for i := 0; i < n; i++ {
			info.keys[strconv.Itoa(i)] = true
			out = append(out, instance{
				addr: fmt.Sprintf("%s[%d]", block, i),
				ctx:  l.evalContext(map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(i))})}),
				sc:   scope{count: true},
			})
		}
		return out
	}
	info.expanded = true
	return []instance{{addr: block, ctx: l.base}}
}

func (l *loader) declareInstances(searches, profiles hcl.Blocks) {
	for _, bs := range []hcl.Blocks{searches, profiles} {
		seen := map[string]hcl.Range{}
		for _, b := range bs {
			if !l.uniqueName(b, seen) {
				l.skip[b] = true
				continue
			}
			l.blocks[b.Type+"."+b.Labels[0]] = &blockInfo{kind: b.Type, name: b.Labels[0], rng: b.DefRange, keys: map[string]bool{}}
		}
	}
}

func (l *loader) decodeSearch(b *hcl.Block) {
	if l.skip[b] {
		return
	}
	schema, _ := l.searchSchema()
	content := l.content(b, schema, "A search block")
	info := l.blocks["search."+b.Labels[0]]
	at := content.Attributes
	for _, in := range l.expand(b, content, info) {
		s := &Search{Address: in.addr, Block: "search." + b.Labels[0], Name: b.Labels[0], DeclRange: b.DefRange,
			Request: api.SearchRequest{Params: map[string]any{}}}
		kwState, urlState := absent, absent
		for _, f := range l.cat.Fields {
			name := catalog.AttributeName(f.SearchParameter)
			a := at[name]
			if a == nil || (contains(searchFixed, name) && name != "keywords") {
				continue
			}
			if f.Type == api.FieldArray {
				l.arrayFilter(s, f, a, in)
				continue
			}
			v, _, astate := l.stringAttr(a, in.ctx, in.sc, true)
			if name == "keywords" {
				kwState = astate
				if astate == ok && strings.TrimSpace(v) == "" {
					l.errorf(a.Expr.Range().Ptr(), "Empty keywords", "keywords must not be empty; give the words to search for, like keywords = \"CTO\".")
					kwState = bad
				}
			}
			if astate == ok && v != "" {
				s.Request.Params[f.SearchParameter] = v
			}
		}
		if _, inCatalog := l.cat.ByAttribute("keywords"); !inCatalog && at["keywords"] != nil {
			v, _, astate := l.stringAttr(at["keywords"], in.ctx, in.sc, true)
			kwState = astate
			if astate == ok {
				s.Request.Params["keywords"] = v
			}
		}
		var urlArrays map[string][]string // array filters the search URL's query sets
		if a := at["search_url"]; a != nil {
			v, sens, astate := l.stringAttr(a, in.ctx, in.sc, true)
			urlState = astate
			if astate == ok {
				if problem := searchURLProblem(v); problem != "" {
					l.errorf(a.Expr.Range().Ptr(), "Invalid search_url", "%s", problem)
					urlState = bad
				} else {
					s.Request.Params["searchUrl"] = v
					urlArrays = l.searchURLFilters(s, a, v, sens, at)
				}
			}
		}
		switch {
		case kwState == absent && urlState == absent:
			l.errorf(b.DefRange.Ptr(), "Missing keywords or search_url",
				"A search needs keywords (like keywords = \"CTO\") or a search_url whose query carries keywords; the service refuses a search with neither.")
		case kwState == ok && urlState == ok:
			l.errorf(at["search_url"].Expr.Range().Ptr(), "Both keywords and search_url",
				"The service takes keywords or a search URL (which carries its own keywords), not both; remove one.")
		}
		if v, astate := l.boolAttr(at["raw"], in.ctx, in.sc); astate == ok {
			s.Request.Raw = v
			if v {
				l.rawAttrs = append(l.rawAttrs, at["raw"])
			}
		}
		l.splitBy(s, at["split_by"], in, urlArrays)
		if n, astate := l.intAttr(at["max_results"], in.ctx, in.sc, 1, -1); astate == ok {
			rng := at["max_results"].Expr.Range().Ptr()
			switch {
			case n > api.MaxResults && at["split_by"] == nil:
				l.errorf(rng, "max_results above the cap without split_by",
					"The network returns at most %d results for one search, so max_results above %d needs split_by, which splits a saturated search into sub-searches by array filters, like split_by = [\"industry_filter\", \"level_filter\"]. Add split_by or lower max_results to %d; got %d.",
					api.MaxResults, api.MaxResults, api.MaxResults, n)
			case n > MaxSplitResults:
				l.errorf(rng, "Invalid max_results", "max_results must be from 1 to %d with split_by; got %d.", MaxSplitResults, n)
			default:
				s.MaxResults = n
			}
		}
		if d, astate := l.durationAttr(at["refresh"], in.ctx, in.sc); astate == ok {
			s.Refresh = d
		}
		l.cfg.Searches = append(l.cfg.Searches, s)
	}
}

// splitBy reads split_by: array filters of the catalog, each once. A
// dimension the search sets to several values is split across those; one
// set to a single value is skipped; any other across all its possible
// values. The search sets a filter by its attribute or in the query of its
// search_url (urlArrays, by search parameter): a sub-search's own filter
// replaces the URL's, so the URL's values bound the split as an
// attribute's do. It runs after the filters are read.
func (l *loader) splitBy(s *Search, a *hcl.Attribute, in instance, urlArrays map[string][]string) {
	if a == nil {
		return
	}
	var arrays []string
	for _, f := range l.cat.Fields {
		if f.Type == api.FieldArray {
			arrays = append(arrays, catalog.AttributeName(f.SearchParameter))
		}
	}
	example := `["industry_filter", "level_filter"]`
	names, rngs, _, astate := l.stringListAttr(a, in.ctx, in.sc, example)
	if astate != ok {
		return
	}
	if len(names) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty split_by", "split_by names the array filters a saturated search is split by, like split_by = %s; remove it or name at least one.", example)
		return
	}
	seen := map[string]bool{}
	good := true
	var dims []SplitDimension
	for i, n := range names {
		if seen[n] {
			l.errorf(rngs[i].Ptr(), "Duplicate split_by dimension", "%q is named twice in split_by; each dimension splits once. Remove the second %q.", n, n)
			good = false
			continue
		}
		seen[n] = true
		f, found := l.cat.ByAttribute(n)
		switch {
		case !found:
			hint := didYouMean(n, arrays)
			if hint == "" {
				hint = " The array filters are " + strings.Join(arrays, ", ") + "."
			}
			l.errorf(rngs[i].Ptr(), "Unknown split_by dimension", "%q is not an array filter of the service (%s).%s", n, l.cat.Describe(), hint)
			good = false
			continue
		case f.Type != api.FieldArray:
			l.errorf(rngs[i].Ptr(), "split_by names a text filter", "%s is a text filter: it has no list of values to split across. split_by takes array filters: %s.", n, strings.Join(arrays, ", "))
			good = false
			continue
		}
		values := f.PossibleValues
		set, isSet := s.Request.Params[f.SearchParameter].([]string)
		if !isSet {
			set, isSet = urlArrays[f.SearchParameter]
		}
		if isSet {
			if len(set) == 1 {
				s.SplitNames = append(s.SplitNames, n)
				continue // one value: nothing to split
			}
			values = set
		}
		s.SplitNames = append(s.SplitNames, n)
		dims = append(dims, SplitDimension{Attribute: n, Param: f.SearchParameter, Values: append([]string(nil), values...)})
	}
	if good {
		s.SplitBy = dims
		if dims == nil {
			s.SplitBy = []SplitDimension{}
			l.warnf(a.Expr.Range().Ptr(), "split_by splits nothing",
				"%s sets each dimension of split_by to a single value, so a search at the cap cannot be split and stays incomplete. Name a dimension the search does not fix, like %q.",
				s.Address, firstFree(arrays, names))
		}
	}
}

// firstFree is the first of arrays not in used ("" when none is left).
func firstFree(arrays, used []string) string {
	for _, a := range arrays {
		if !contains(used, a) {
			return a
		}
	}
	return ""
}

// arrayFilter checks an array filter against the catalog's possible values.
func (l *loader) arrayFilter(s *Search, f api.Field, a *hcl.Attribute, in instance) {
	example := "[\"" + f.PossibleValues[0] + "\"]"
	vals, rngs, sens, astate := l.stringListAttr(a, in.ctx, in.sc, example)
	if astate != ok || len(vals) == 0 {
		return
	}
	good := true
	seen := map[string]bool{}
	var out []string
	for i, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		if contains(f.PossibleValues, v) {
			out = append(out, v)
			continue
		}
		good = false
		l.errorf(rngs[i].Ptr(), "Invalid "+a.Name+" value", "%s", l.valueProblem(f, a.Name, v, sens))
	}
	if good {
		s.Request.Params[f.SearchParameter] = out
	}
}

// valueProblem is the detail of an array filter item v that is not one of
// f's possible values; name is the filter as the configuration writes it.
func (l *loader) valueProblem(f api.Field, name, v string, sens bool) string {
	shown := strconv.Quote(v)
	if sens {
		shown = "A sensitive value"
	}
	hint := ""
	if near := nearest(v, f.PossibleValues, 3); len(near) > 0 && !sens {
		hint = " Did you mean " + textfmt.QuoteList(near, " or ") + "?"
	} else {
		hint = " Valid values: " + textfmt.QuoteList(f.PossibleValues, ", ") + "."
	}
	return fmt.Sprintf("%s is not one of the values the service accepts for %s (%s).%s", shown, name, l.cat.Describe(), hint)
}

// searchURLProblem checks a search URL: absolute http(s) with a keywords
// query parameter, as the service requires. It returns the diagnostic's
// detail, or "" when the URL is fine.
func searchURLProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "search_url must be an absolute http(s) URL of a search on the network, like \"https://network.example/search?keywords=CTO\"."
	}
	if strings.TrimSpace(u.Query().Get("keywords")) == "" {
		return "The service requires a keywords parameter in the query of a search URL, like \"https://network.example/search?keywords=CTO\"; this one has none."
	}
	return ""
}

// searchURLFilters checks the filters in the query of a search URL as the
// attributes are checked, since the service applies them alike: each value
// of an array filter must be one of the catalog's possible values, and a
// filter set both in the URL and as an attribute of the block is an error
// (which one the service applies is not specified). An array filter takes
// one value per occurrence (industryFilter=A&industryFilter=B), as the
// sandbox reads it; values cannot be separated by commas, since some hold
// commas themselves. Parameters the catalog does not know draw one warning.
// It returns the array filters the URL sets, by search parameter, each
// value once in the URL's order; a filter with an invalid value is left out.
func (l *loader) searchURLFilters(s *Search, a *hcl.Attribute, raw string, sens bool, at hcl.Attributes) map[string][]string {
	u, err := url.Parse(raw)
	if err != nil { // searchURLProblem has accepted it
		return nil
	}
	query := u.Query()
	rng := a.Expr.Range().Ptr()
	byParam := map[string]api.Field{}
	var params []string
	for _, f := range l.cat.Fields {
		byParam[f.SearchParameter] = f
		params = append(params, f.SearchParameter)
	}
	out := map[string][]string{}
	var unknown, hints []string
	for _, k := range slices.Sorted(maps.Keys(query)) {
		if k == "keywords" { // searchURLProblem checks it
			continue
		}
		f, known := byParam[k]
		if !known {
			unknown = append(unknown, k)
			if near := nearest(k, params, 1); len(near) > 0 {
				hints = append(hints, fmt.Sprintf("%q for %q", near[0], k))
			}
			continue
		}
		name := catalog.AttributeName(k)
		if attr := at[name]; attr != nil && s.Request.Params[k] != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Filter set twice",
				"%s is set here and as %s in the query of search_url (%s); which one the service applies is not specified. Remove one of the two.",
				name, k, shortRange(a.Expr.Range()))
			continue
		}
		if f.Type != api.FieldArray {
			continue
		}
		good := true
		var values []string
		for _, v := range query[k] {
			if contains(values, v) {
				continue
			}
			if contains(f.PossibleValues, v) {
				values = append(values, v)
				continue
			}
			good = false
			l.errorf(rng, "Invalid "+k+" value in search_url", "%s%s",
				l.valueProblem(f, k+" in the query of search_url", v, sens), commaHint(f, k, v, sens))
		}
		if good {
			out[k] = values
		}
	}
	if len(unknown) > 0 {
		what := "is not a search parameter"
		if len(unknown) > 1 {
			what = "are not search parameters"
		}
		hint := ""
		if len(hints) > 0 {
			hint = " Did you mean " + strings.Join(hints, ", ") + "?"
		}
		l.warnf(rng, "Unknown parameter in search_url",
			"The query of search_url has %s, which %s of the service (%s): leadsync cannot check %s, and whether the service applies %s is not known.%s The search parameters are %s. Remove what is not a filter (a tracking or paging parameter copied with the URL) to silence this warning.",
			textfmt.QuoteList(unknown, ", "), what, l.cat.Describe(), pick(len(unknown), "it", "them"), pick(len(unknown), "it", "them"), hint, strings.Join(params, ", "))
	}
	return out
}

// pick is one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// commaHint explains, for a search URL's array filter value that is
// possible values joined by commas, that each value is a parameter of its
// own.
func commaHint(f api.Field, param, v string, sens bool) string {
	if sens || !strings.Contains(v, ",") {
		return ""
	}
	parts := strings.Split(v, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if !contains(f.PossibleValues, parts[i]) {
			return ""
		}
	}
	var qs []string
	for _, p := range parts {
		qs = append(qs, param+"="+url.QueryEscape(p))
	}
	return fmt.Sprintf(" A URL gives each value as a parameter of its own: %s.", strings.Join(qs, "&"))
}

var profileSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "for_each"}, {Name: "count"}, {Name: "page_name"}, {Name: "profile_url"}, {Name: "refresh"},
}}

func (l *loader) decodeProfile(b *hcl.Block) {
	if l.skip[b] {
		return
	}
	content := l.content(b, profileSchema, "A profile block")
	info := l.blocks["profile."+b.Labels[0]]
	at := content.Attributes
	for _, in := range l.expand(b, content, info) {
		p := &Profile{Address: in.addr, Block: "profile." + b.Labels[0], Name: b.Labels[0], DeclRange: b.DefRange}
		pn, _, pnSt := l.stringAttr(at["page_name"], in.ctx, in.sc, true)
		pu, _, puSt := l.stringAttr(at["profile_url"], in.ctx, in.sc, true)
		if pnSt == ok {
			switch {
			case strings.TrimSpace(pn) == "":
				l.errorf(at["page_name"].Expr.Range().Ptr(), "Empty page_name", "page_name must not be empty; it is the short profile name, like \"Max_Mustermann\".")
				pnSt = bad
			case strings.ContainsAny(pn, "/ \t\n?#"):
				l.errorf(at["page_name"].Expr.Range().Ptr(), "Invalid page_name", "page_name is the short profile name, like \"Max_Mustermann\", without slashes or spaces; for a full address use profile_url.")
				pnSt = bad
			default:
				p.Request.PageName, p.PageName = pn, pn
			}
		}
		if puSt == ok {
			u, err := url.Parse(pu)
			name := ""
			if err == nil {
				name = path.Base(strings.TrimSuffix(u.Path, "/"))
			}
			if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || name == "" || name == "." || name == "/" {
				l.errorf(at["profile_url"].Expr.Range().Ptr(), "Invalid profile_url", "profile_url must be the absolute http(s) address of a member profile, like \"https://network.example/profile/Max_Mustermann\".")
				puSt = bad
			} else {
				p.Request.ProfileURL, p.PageName = pu, name
			}
		}
		switch {
		case pnSt == absent && puSt == absent:
			l.errorf(b.DefRange.Ptr(), "Missing page_name or profile_url", "A profile names one person: page_name = \"Max_Mustermann\" or profile_url = \"https://...\".")
		case pnSt == ok && puSt == ok:
			l.errorf(at["profile_url"].Expr.Range().Ptr(), "Both page_name and profile_url", "A profile takes exactly one of page_name and profile_url; remove one.")
			p.Request.ProfileURL = ""
			p.PageName = pn
		}
		if d, astate := l.durationAttr(at["refresh"], in.ctx, in.sc); astate == ok {
			p.Refresh = d
		}
		l.cfg.Profiles = append(l.cfg.Profiles, p)
	}
}

var enrichSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "where"}, {Name: "limit"}, {Name: "refresh"}, {Name: "for_each"}, {Name: "count"},
}}

func (l *loader) noRepeat(content *hcl.BodyContent, what string) {
	for _, n := range []string{"for_each", "count"} {
		if a := content.Attributes[n]; a != nil {
			l.errorf(a.NameRange.Ptr(), n+" not allowed here", "%s is only for search and profile blocks; %s", n, what)
		}
	}
}

func (l *loader) decodeEnrich(b *hcl.Block) {
	content := l.content(b, enrichSchema, "An enrich block")
	l.noRepeat(content, "an enrich block already works on every lead of its from list. To enrich several groups differently, write several enrich blocks.")
	e := &Enrich{Address: "enrich." + b.Labels[0], Name: b.Labels[0], DeclRange: b.DefRange}
	at := content.Attributes
	if a := at["from"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing from", "An enrich block needs from, the searches and profiles whose people it enriches, like from = [search.cto].")
	} else {
		e.From, _ = l.fromList(a)
	}
	if a := at["where"]; a != nil {
		if l.checkWhere(a) {
			e.Where = a.Expr
		}
	}
	if n, astate := l.intAttr(at["limit"], l.base, scope{}, 1, -1); astate == ok {
		e.Limit = n
	}
	if d, astate := l.durationAttr(at["refresh"], l.base, scope{}); astate == ok {
		e.Refresh = d
	}
	l.cfg.Enriches = append(l.cfg.Enriches, e)
}

// leadType is the object type of `lead` in where expressions.
func leadType() cty.Type {
	attrs := map[string]cty.Type{}
	for _, f := range LeadFields {
		attrs[f] = cty.String
	}
	return cty.Object(attrs)
}

// checkWhere checks a where expression's references and that it yields a
// bool for a lead whose fields are not known yet.
func (l *loader) checkWhere(a *hcl.Attribute) bool {
	if !l.add(l.checkRefs(a.Expr, scope{lead: true})) {
		return false
	}
	ctx := l.evalContext(map[string]cty.Value{"lead": cty.UnknownVal(leadType())})
	v, ds := a.Expr.Value(ctx)
	if !l.add(ds) {
		return false
	}
	v, _ = v.UnmarkDeep()
	if ty := v.Type(); ty != cty.Bool && ty != cty.DynamicPseudoType {
		l.errorf(a.Expr.Range().Ptr(), "Invalid where", "where must be true or false for each lead, like lead.company != \"\"; this expression gives %s.", typeName(ty))
		return false
	}
	return true
}

// fromList decodes a from list: references to declared search and profile
// blocks or their instances.
func (l *loader) fromList(a *hcl.Attribute) ([]string, bool) {
	exprs, ds := hcl.ExprList(a.Expr)
	if ds.HasErrors() {
		if _, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() {
			exprs = []hcl.Expression{a.Expr} // a single reference without brackets
		} else {
			l.fromItemError(a.Expr)
			return nil, false
		}
	}
	if len(exprs) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty from", "from lists at least one search or profile block, like from = [search.cto].")
		return nil, false
	}
	var out []string
	good := true
	seen := map[string]bool{}
	for _, e := range exprs {
		addr, ok := l.fromRef(e)
		if !ok {
			good = false
			continue
		}
		if !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	return out, good
}

func (l *loader) fromItemError(e hcl.Expression) {
	if v, ds := e.Value(nil); !ds.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		s := v.AsString()
		l.errorf(e.Range().Ptr(), "String instead of reference", "from takes references to blocks, not strings: write %s without quotes.", s)
		return
	}
	if v, ds := e.Value(nil); !ds.HasErrors() && (v.Type().IsTupleType() || v.Type().IsListType()) {
		l.errorf(e.Range().Ptr(), "String instead of reference", "from takes references to blocks, not strings: write them without quotes, like [search.cto, profile.founder].")
		return
	}
	l.errorf(e.Range().Ptr(), "Invalid from", "from is a list of references to search and profile blocks, written out, like [search.cto, search.cfo[\"Berlin\"], profile.founder]; it cannot be computed.")
}

func (l *loader) fromRef(e hcl.Expression) (string, bool) {
	t, ds := hcl.AbsTraversalForExpr(e)
	if ds.HasErrors() {
		l.fromItemError(e)
		return "", false
	}
	rng := t.SourceRange().Ptr()
	root := t.RootName()
	if root != "search" && root != "profile" {
		l.errorf(rng, "Invalid from reference", "from lists search and profile blocks, like search.cto or profile.founder; %q is neither.", root)
		return "", false
	}
	if len(t) < 2 {
		l.errorf(rng, "Invalid from reference", "%s is followed by a block name, like %s.cto.", root, root)
		return "", false
	}
	at, isAttr := t[1].(hcl.TraverseAttr)
	if !isAttr {
		l.errorf(rng, "Invalid from reference", "%s is followed by a block name, like %s.cto.", root, root)
		return "", false
	}
	block := root + "." + at.Name
	info := l.blocks[block]
	if info == nil {
		var names []string
		for k, b := range l.blocks {
			if b.kind == root {
				names = append(names, k[len(root)+1:])
			}
		}
		sort.Strings(names)
		hint := didYouMean(at.Name, names)
		other := map[string]string{"search": "profile", "profile": "search"}[root]
		if hint == "" {
			hint = fmt.Sprintf(" Declare a %s %q block, or remove the reference.", root, at.Name)
		}
		if l.blocks[other+"."+at.Name] != nil {
			hint = fmt.Sprintf(" There is a %s block named %q: did you mean %s.%s?", other, at.Name, other, at.Name)
		}
		l.errorf(rng, "Reference to undeclared "+root+" block", "No %s block named %q is declared.%s", root, at.Name, hint)
		return "", false
	}
	if len(t) == 2 {
		return block, true
	}
	idx, isIdx := t[2].(hcl.TraverseIndex)
	if !isIdx || len(t) > 3 {
		l.errorf(rng, "Invalid from reference", "from refers to a whole block (%s) or one instance (%s[\"key\"] or %s[0]); nothing else.", block, block, block)
		return "", false
	}
	switch info.mode {
	case single:
		l.errorf(rng, "Invalid instance key", "%s has neither for_each nor count, so it has no instances to index; write %s.", block, block)
		return "", false
	case forEach:
		if idx.Key.Type() != cty.String {
			l.errorf(rng, "Invalid instance key", "%s uses for_each, so its instances have string keys, like %s[\"Berlin\"].", block, block)
			return "", false
		}
		k := idx.Key.AsString()
		if info.expanded && !info.keys[k] {
			var keys []string
			for k := range info.keys {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			l.errorf(rng, "Invalid instance key", "%s has no instance %q; its keys are %s.", block, k, textfmt.QuoteList(keys, ", "))
			return "", false
		}
		return fmt.Sprintf("%s[%s]", block, strconv.Quote(k)), true
	default:
		if idx.Key.Type() != cty.Number {
			l.errorf(rng, "Invalid instance key", "%s uses count, so its instances have numbers, like %s[0].", block, block)
			return "", false
		}
		bf := idx.Key.AsBigFloat()
		n, acc := bf.Int64()
		if !bf.IsInt() || acc != 0 || (info.expanded && !info.keys[strconv.FormatInt(n, 10)]) {
			l.errorf(rng, "Invalid instance key", "%s has %d instances (count); %s is not one of their indexes.", block, len(info.keys), bf.Text('g', -1))
			return "", false
		}
		return fmt.Sprintf("%s[%d]", block, n), true
	}
}

var exportSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "path"}, {Name: "for_each"}, {Name: "count"}, {Name: "allow_outside"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "sheet", LabelNames: []string{"name"}}},
}

var sheetSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "columns"}, {Name: "dedupe"}, {Name: "labels"}, {Name: "only_new"},
}}

func (l *loader) decodeExport(b *hcl.Block, paths map[string]string) {
	content, ds := b.Body.Content(exportSchema)
	l.add(ds)
	l.noRepeat(content, "to write several files, write several export blocks.")
	x := &Export{Address: "export." + b.Labels[0], Name: b.Labels[0], DeclRange: b.DefRange}
	if a := content.Attributes["path"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing path", "An export needs path, the file to write, like path = \"out/leads.xlsx\".")
	} else if p, _, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
		ext := strings.ToLower(filepath.Ext(p))
		key := filepath.Clean(p)
		switch {
		case ext != ".xlsx" && ext != ".csv":
			l.errorf(a.Expr.Range().Ptr(), "Unsupported export format", "path must end in .xlsx or .csv; %q does not.", p)
		case strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) == "":
			l.errorf(a.Expr.Range().Ptr(), "Invalid path", "path needs a file name before the extension.")
		case paths[key] != "":
			l.errorf(a.Expr.Range().Ptr(), "Duplicate export path", "%s already writes %q; two exports would overwrite each other.", paths[key], p)
		default:
			paths[key] = x.Address
			x.Path, x.Format = p, ext[1:]
			x.PathRange = a.Expr.Range()
		}
	}
	l.decodeAllowOutside(x, content.Attributes["allow_outside"])
	sheets := content.Blocks.OfType("sheet")
	if len(sheets) == 0 {
		l.errorf(b.DefRange.Ptr(), "Export without sheets", "An export needs at least one sheet block, like sheet \"Leads\" { from = [search.cto] }.")
	}
	seen := map[string]hcl.Range{}
	for _, sb := range sheets {
		name := sb.Labels[0]
		if err := checkSheetName(name); err != nil {
			l.errorf(sb.LabelRanges[0].Ptr(), "Invalid sheet name", "%s.", err)
		} else if prev, dup := seen[strings.ToLower(name)]; dup {
			l.errorf(sb.LabelRanges[0].Ptr(), "Duplicate sheet name", "This export already has a sheet %q at %s (sheet names are compared ignoring case).", name, shortRange(prev))
		} else {
			seen[strings.ToLower(name)] = sb.DefRange
		}
		x.Sheets = append(x.Sheets, l.decodeSheet(sb))
	}
	l.cfg.Exports = append(l.cfg.Exports, x)
}

// checkSheetName applies the spreadsheet rules for sheet names.
func checkSheetName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("a sheet name must not be empty")
	case utf8.RuneCountInString(name) > 31:
		return fmt.Errorf("%q has %d characters; spreadsheets allow at most 31", name, utf8.RuneCountInString(name))
	case strings.ContainsAny(name, `[]:*?/\`):
		return fmt.Errorf("%q contains one of []:*?/\\, which spreadsheets forbid in sheet names", name)
	case strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'"):
		return fmt.Errorf("%q starts or ends with an apostrophe, which spreadsheets forbid", name)
	case strings.EqualFold(name, "History"):
		return fmt.Errorf("\"History\" is reserved by spreadsheet programs; choose another name")
	}
	return nil
}

func (l *loader) decodeSheet(b *hcl.Block) *Sheet {
	content, ds := b.Body.Content(sheetSchema)
	l.add(ds)
	s := &Sheet{Name: b.Labels[0], Columns: append([]string(nil), DefaultColumns...), Dedupe: true}
	at := content.Attributes
	if a := at["from"]; a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing from", "A sheet needs from, the searches and profiles whose people it lists, like from = [search.cto].")
	} else {
		s.From, _ = l.fromList(a)
	}
	if a := at["columns"]; a != nil {
		cols, rngs, _, astate := l.stringListAttr(a, l.base, scope{}, `["fullName", "email"]`)
		if astate == ok {
			known := append(append([]string{}, DefaultColumns...), ExtraColumns...)
			good := true
			seen := map[string]bool{}
			for i, c := range cols {
				switch {
				case !contains(known, c):
					good = false
					hint := didYouMean(c, known)
					if hint == "" {
						hint = " Columns: " + strings.Join(known, ", ") + "."
					}
					l.errorf(rngs[i].Ptr(), "Unknown column", "%q is not a column.%s", c, hint)
				case seen[c]:
					good = false
					l.errorf(rngs[i].Ptr(), "Duplicate column", "%q is listed twice.", c)
				}
				seen[c] = true
			}
			if len(cols) == 0 {
				good = false
				l.errorf(a.Expr.Range().Ptr(), "Empty columns", "columns must name at least one column; remove it to get the default columns.")
			}
			if good {
				s.Columns, s.columnRanges = cols, rngs
			}
		}
	}
	if v, astate := l.boolAttr(at["dedupe"], l.base, scope{}); astate == ok {
		s.Dedupe = v
	}
	if v, astate := l.boolAttr(at["only_new"], l.base, scope{}); astate == ok {
		s.OnlyNew = v
	}
	if a := at["labels"]; a != nil {
		s.Labels = l.sheetLabels(a, s.Columns)
	}
	return s
}

// sheetLabels evaluates labels = { column = "Header text", ... }: every key
// must be a known column and every value a non-empty string. A label for a
// column the sheet does not show is a warning (it has no effect).
func (l *loader) sheetLabels(a *hcl.Attribute, columns []string) map[string]string {
	v, _, astate := l.value(a, l.base, scope{})
	if astate != ok {
		return nil
	}
	ty := v.Type()
	if !(ty.IsObjectType() || ty.IsMapType()) {
		l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "labels takes an object of column names and header texts, like { email = \"Work e-mail\" }; got %s.", typeName(ty))
		return nil
	}
	// The source range of each key and value, when written literally.
	keyRng := map[string]hcl.Range{}
	valRng := map[string]hcl.Range{}
	if pairs, ds := hcl.ExprMap(a.Expr); !ds.HasErrors() {
		for _, p := range pairs {
			if k, kds := p.Key.Value(nil); !kds.HasErrors() && k.Type() == cty.String && k.IsKnown() && !k.IsNull() {
				keyRng[k.AsString()] = p.Key.Range()
				valRng[k.AsString()] = p.Value.Range()
			}
		}
	}
	rangeOf := func(m map[string]hcl.Range, k string) *hcl.Range {
		if r, found := m[k]; found {
			return r.Ptr()
		}
		return a.Expr.Range().Ptr()
	}
	known := append(append([]string{}, DefaultColumns...), ExtraColumns...)
	out := map[string]string{}
	good := true
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		name := k.AsString()
		if !contains(known, name) {
			good = false
			hint := didYouMean(name, known)
			if hint == "" {
				hint = " Columns: " + strings.Join(known, ", ") + "."
			}
			l.errorf(rangeOf(keyRng, name), "Unknown column", "labels names %q, which is not a column.%s", name, hint)
			continue
		}
		if e.IsNull() || !e.IsKnown() || e.Type() != cty.String {
			good = false
			l.errorf(rangeOf(valRng, name), "Incorrect value type", "The label of %s must be a string, like %s = %q; got %s.", name, name, ColumnLabels[name], typeDesc(e))
			continue
		}
		text := strings.TrimSpace(e.AsString())
		if text == "" {
			good = false
			l.errorf(rangeOf(valRng, name), "Empty label", "The label of %s is empty; a header needs text. Remove it for the default %q.", name, ColumnLabels[name])
			continue
		}
		if !contains(columns, name) {
			l.warnf(rangeOf(keyRng, name), "Label for a column the sheet does not show", "This sheet has no column %s, so its label is not used; add %s to columns or remove the label.", name, name)
		}
		out[name] = text
	}
	if !good {
		return nil
	}
	return out
}

// crossChecks are rules between blocks: generations, the service addresses,
// and a timeout too short for the searches.
func (l *loader) crossChecks() {
	a := l.cfg.API
	if l.apiBlock == nil {
		return
	}
	if t := l.apiTimeout; t != nil && a.Timeout > 0 && a.Timeout < api.MaxSearchLatency && len(l.cfg.Searches) > 0 {
		l.warnf(t.Expr.Range().Ptr(), "Timeout shorter than a search can take",
			"The service runs each search live on the network, and a search can take up to %.0f seconds. With timeout = %q a slower search is abandoned and tried again, and each try may count as a request of the monthly quota although no result came back. Set timeout to at least \"%.0fs\" (the default is \"%.0fs\"), or leave it out.",
			api.MaxSearchLatency.Seconds(), FormatDuration(a.Timeout), api.MaxSearchLatency.Seconds(), api.DefaultTimeout.Seconds())
	}
	if a.Generation == api.Gen2 {
		if a.BaseURLV2 == "" && !a.Sandbox {
			rng := l.apiBlock.DefRange.Ptr()
			if l.apiGeneration != nil {
				rng = l.apiGeneration.Expr.Range().Ptr()
			}
			l.errorf(rng, "Missing base_url_v2", "generation = 2 sends searches and profile reads to the second generation, so the api block needs base_url_v2 (like \"https://v2.example.com\").")
		}
		for _, r := range l.rawAttrs {
			l.errorf(r.Expr.Range().Ptr(), "raw needs generation 1", "Only the first generation of the service returns raw results, and the api block sets generation = 2. Remove raw, or use generation = 1.")
		}
	}
}

// sortInstances orders searches and profiles by address, with count indexes
// in numeric order.
func sortInstances(c *Config) {
	less := func(blockA, addrA, blockB, addrB string) bool {
		if blockA != blockB {
			return blockA < blockB
		}
		ka, kb := addrA[len(blockA):], addrB[len(blockB):]
		na, ea := strconv.Atoi(strings.Trim(ka, "[]"))
		nb, eb := strconv.Atoi(strings.Trim(kb, "[]"))
		if ea == nil && eb == nil && strings.HasPrefix(ka, "[") && !strings.HasPrefix(ka, "[\"") {
			return na < nb
		}
		return ka < kb
	}
	sort.SliceStable(c.Searches, func(i, j int) bool {
		return less(c.Searches[i].Block, c.Searches[i].Address, c.Searches[j].Block, c.Searches[j].Address)
	})
	sort.SliceStable(c.Profiles, func(i, j int) bool {
		return less(c.Profiles[i].Block, c.Profiles[i].Address, c.Profiles[j].Block, c.Profiles[j].Address)
	})
}
