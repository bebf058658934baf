package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agext/levenshtein"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/safefile"
)

// builtinJSON is the spec's field list (section 2.1), in the same form as the
// service's fields route returns, so a live copy can replace it unchanged.
//
//go:embed fields.json
var builtinJSON []byte

// SourceBuiltin is Catalog.Source of the embedded list.
const SourceBuiltin = "built-in"

// CachePath is where `leadsync fields --refresh` caches the live list,
// relative to the configuration directory.
const CachePath = ".leadsync/fields.json"

// Default returns the built-in catalog: the spec's 15 fields with all their
// possible values. Every call returns a fresh copy that the caller may modify.
func Default() *Catalog {
	var fields []api.Field
	if err := json.Unmarshal(builtinJSON, &fields); err != nil {
		// The file is embedded and covered by tests; failing here is a build defect.
		panic("catalog: embedded fields.json: " + err.Error())
	}
	return &Catalog{Fields: fields, Source: SourceBuiltin}
}

// cacheFile is the on-disk form of a cached live catalog.
type cacheFile struct {
	FormatVersion string      `json:"format_version"`
	FetchedAt     time.Time   `json:"fetched_at"`
	Fields        []api.Field `json:"fields"`
}

// LoadCache reads a cached live catalog. A missing file is not an error: it
// returns nil, nil, and the caller uses Default. A file that cannot be read
// or decoded, or that holds an invalid list, is an error naming the path and
// how to fix it.
func LoadCache(path string) (*Catalog, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the field catalog cache %s: %w", path, err)
	}
	var cf cacheFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, fmt.Errorf("the field catalog cache %s is corrupt (%v); delete it or run `leadsync fields --refresh`", path, err)
	}
	if err := Check(cf.Fields); err != nil {
		return nil, fmt.Errorf("the field catalog cache %s is invalid: %v; delete it or run `leadsync fields --refresh`", path, err)
	}
	return &Catalog{Fields: cf.Fields, Source: path, FetchedAt: cf.FetchedAt}, nil
}

// SaveCache writes fields as the cached live catalog at path, atomically
// (temporary file, sync, rename). It creates the directory as the state's
// (safefile.EnsureDir: 0700, a .gitignore of "*"), because .leadsync/ also
// holds state with personal data that must not be committed.
func SaveCache(path string, fields []api.Field, now time.Time) error {
	if err := Check(fields); err != nil {
		return fmt.Errorf("refusing to cache an invalid field list: %w", err)
	}
	dir := filepath.Dir(path)
	if err := safefile.EnsureDir(dir); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(cacheFile{FormatVersion: "1", FetchedAt: now.UTC(), Fields: fields}, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(dir, ".fields-*.tmp")
	if err != nil {
		return fmt.Errorf("writing the field catalog cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the field catalog cache: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the field catalog cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the field catalog cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing the field catalog cache: %w", err)
	}
	return nil
}

// Check reports the first problem of a field list: empty list, a descriptor
// without search_parameter, an unknown type, an array field without values,
// or a parameter given twice.
func Check(fields []api.Field) error {
	if len(fields) == 0 {
		return fmt.Errorf("the field list is empty")
	}
	seen := map[string]bool{}
	for i, f := range fields {
		if f.SearchParameter == "" {
			return fmt.Errorf("field %d has no search_parameter", i)
		}
		if seen[f.SearchParameter] {
			return fmt.Errorf("search_parameter %q appears twice", f.SearchParameter)
		}
		seen[f.SearchParameter] = true
		switch f.Type {
		case api.FieldText:
		case api.FieldArray:
			if len(f.PossibleValues) == 0 {
				return fmt.Errorf("array field %q has no possible_values", f.SearchParameter)
			}
		default:
			return fmt.Errorf("field %q has type %q; want %q or %q", f.SearchParameter, f.Type, api.FieldText, api.FieldArray)
		}
	}
	return nil
}

// AttributeName converts a search_parameter to its configuration attribute
// name (industryFilter -> industry_filter); see api.AttributeName.
func AttributeName(searchParameter string) string { return api.AttributeName(searchParameter) }

// ByAttribute returns the field whose attribute name is attr.
func (c *Catalog) ByAttribute(attr string) (api.Field, bool) {
	for _, f := range c.Fields {
		if AttributeName(f.SearchParameter) == attr {
			return f, true
		}
	}
	return api.Field{}, false
}

// Attributes returns the attribute names of all fields, in catalog order.
func (c *Catalog) Attributes() []string {
	out := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		out = append(out, AttributeName(f.SearchParameter))
	}
	return out
}

// Describe says where the catalog came from, for messages: "built-in" or
// "<path> (fetched <time>)".
func (c *Catalog) Describe() string {
	if c.Source == SourceBuiltin || c.Source == "" {
		return "the built-in field list"
	}
	if c.FetchedAt.IsZero() {
		return c.Source
	}
	return fmt.Sprintf("%s (fetched %s)", c.Source, c.FetchedAt.UTC().Format(time.RFC3339))
}

// Nearest returns up to n candidates closest to value, best first, for "did
// you mean" messages. Closeness is the edit distance ignoring case; a
// candidate that contains value (or is contained in it) counts as close.
// Candidates too far to be a plausible typo are left out, so the result may
// be empty.
func Nearest(value string, candidates []string, n int) []string {
	type scored struct {
		s     string
		score int
		idx   int
	}
	lv := strings.ToLower(strings.TrimSpace(value))
	var out []scored
	for i, c := range candidates {
		lc := strings.ToLower(c)
		d := levenshtein.Distance(lv, lc, nil)
		limit := max(2, len([]rune(lv))/3)
		switch {
		case lv == lc:
			d = 0
		case min(len([]rune(lv)), len([]rune(lc))) >= 2 && (strings.Contains(lc, lv) || strings.Contains(lv, lc)):
			// "IT" -> "Internet and IT": a containment is a strong hint
			// whatever the length difference, unless the contained string
			// is a single letter ("n" is in almost every name).
			d = min(d, 1+abs(len(lc)-len(lv))/4)
		case d > limit:
			continue
		}
		out = append(out, scored{c, d, i})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score < out[j].score })
	if len(out) > n {
		out = out[:n]
	}
	res := make([]string, len(out))
	for i, s := range out {
		res[i] = s.s
	}
	return res
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
