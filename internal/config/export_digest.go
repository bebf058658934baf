package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// ExportDigest is a hex SHA-256 of everything in the configuration that
// decides what export x writes, and nothing else: the export's address,
// name, path and format; each sheet's name, from (as written and as
// resolved to instances), columns, labels, dedupe and only_new; the
// profile link template of the leadsync block; what the Summary shows
// of the sources (each search's filters, each profile's page name); and
// the labels of the sources, which the Found in column and the Summary
// show.
// Source positions are left out, so moving a block or reformatting a file
// changes nothing. The working copy's export record keeps it, and a
// spreadsheet whose digest changed is written again.
func (c *Config) ExportDigest(x *Export) string {
	type sheet struct {
		Name    string            `json:"name"`
		From    []string          `json:"from"`
		Sources []string          `json:"sources"`
		Columns []string          `json:"columns"`
		Labels  map[string]string `json:"labels"`
		Dedupe  bool              `json:"dedupe"`
		OnlyNew bool              `json:"only_new"`
		// Empty for a sheet without where or changes, so that the digest
		// of such a sheet is what it was before they existed.
		Where   string   `json:"where,omitempty"`
		Changes []string `json:"changes,omitempty"`
		Since   int64    `json:"since,omitempty"`
	}
	type source struct {
		Address  string         `json:"address"`
		Filters  map[string]any `json:"filters,omitempty"`
		PageName string         `json:"page_name,omitempty"`
	}
	d := struct {
		Address            string   `json:"address"`
		Name               string   `json:"name"`
		Path               string   `json:"path"`
		Format             string   `json:"format"`
		Sheets             []sheet  `json:"sheets"`
		ProfileURLTemplate string   `json:"profile_url_template"`
		Sources            []source `json:"sources"`
		Excludes           string   `json:"excludes,omitempty"`
		// FoundIn are the labels the Found in column and the Summary show
		// instead of addresses (of every source: a person's may be
		// anywhere, and a label another source shares is shown with the
		// address); empty without labels.
		FoundIn map[string]string `json:"found_in,omitempty"`
	}{Address: x.Address, Name: x.Name, Path: x.Path, Format: x.Format, ProfileURLTemplate: c.Settings.ProfileURLTemplate}
	used := map[string]bool{}
	for _, s := range x.Sheets {
		srcs := c.Resolve(s.From)
		for _, a := range srcs {
			used[a] = true
		}
		d.Sheets = append(d.Sheets, sheet{Name: s.Name, From: s.From, Sources: srcs, Columns: s.Columns,
			Labels: s.Labels, Dedupe: s.Dedupe, OnlyNew: s.OnlyNew,
			Where: c.exprSource(s.Where), Changes: s.Changes, Since: int64(s.Since)})
	}
	for _, s := range c.Searches {
		if used[s.Address] {
			d.Sources = append(d.Sources, source{Address: s.Address, Filters: s.Request.Params})
		}
	}
	for _, p := range c.Profiles {
		if used[p.Address] {
			d.Sources = append(d.Sources, source{Address: p.Address, PageName: p.PageName})
		}
	}
	sort.Slice(d.Sources, func(i, j int) bool { return d.Sources[i].Address < d.Sources[j].Address })
	d.FoundIn = c.Labels()
	// Excluded people leave every export: another list is another content.
	d.Excludes = excludeHash(c)
	// json.Marshal writes map keys sorted: the same configuration always
	// gives the same bytes.
	b, err := json.Marshal(d)
	if err != nil {
		// Filters are strings, numbers, booleans and lists of them; a
		// value json cannot write would be a bug. The planner counts an
		// empty digest as changed, so the export is written again.
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// exprSource is the source text of an expression, "" for none: what the
// user wrote, without its position.
func (c *Config) exprSource(e hcl.Expression) string {
	if e == nil {
		return ""
	}
	r := e.Range()
	if f := c.Files[r.Filename]; f != nil && r.End.Byte <= len(f.Bytes) && r.Start.Byte <= r.End.Byte {
		return string(f.Bytes[r.Start.Byte:r.End.Byte])
	}
	return r.String()
}
