package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/leadsync/leadsync/internal/textfmt"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// hash is a SHA-256 over the configuration files (names and contents), the
// final variable values and the digests of the list files read (exclude,
// import). Sensitive values enter only as their own
// SHA-256, so that the hash reveals nothing.
func (l *loader) hash() string {
	h := sha256.New()
	for _, name := range l.configFiles {
		f := l.cfg.Files[name]
		fmt.Fprintf(h, "file %q %d\n", name, len(f.Bytes))
		h.Write(f.Bytes)
	}
	names := append([]string(nil), l.varOrder...)
	sort.Strings(names)
	for _, name := range names {
		v := l.vars[name]
		val, _ := v.value.UnmarkDeep()
		b := []byte("unknown")
		if val.IsWhollyKnown() {
			if j, err := ctyjson.Marshal(val, val.Type()); err == nil {
				b = j
			}
		}
		if v.sensitive {
			s := sha256.Sum256(b)
			b = []byte(hex.EncodeToString(s[:]))
		}
		fmt.Fprintf(h, "var %q %d\n", name, len(b))
		h.Write(b)
	}
	h.Write([]byte(excludeHash(l.cfg)))
	h.Write([]byte(importHash(l.cfg)))
	if l.usesWorkspace {
		fmt.Fprintf(h, "workspace %q\n", l.leadsyncValue().GetAttr("workspace").AsString())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// DiagFiles returns the files for rendering diagnostics, with sensitive
// literals (api_key, sensitive defaults and variable-file values) replaced
// by asterisks of the same length, so that snippets never show a secret and
// columns stay right.
func (c *Config) DiagFiles() map[string]*hcl.File {
	if c == nil {
		return nil
	}
	if len(c.secretRanges) == 0 {
		return c.Files
	}
	out := make(map[string]*hcl.File, len(c.Files))
	for name, f := range c.Files {
		out[name] = f
	}
	for _, r := range c.secretRanges {
		f := out[r.Filename]
		if f == nil || r.End.Byte > len(f.Bytes) || r.Start.Byte > r.End.Byte {
			continue
		}
		if f == c.Files[r.Filename] {
			f = &hcl.File{Body: f.Body, Bytes: append([]byte(nil), f.Bytes...), Nav: f.Nav}
			out[r.Filename] = f
		}
		for i := r.Start.Byte; i < r.End.Byte; i++ {
			if f.Bytes[i] != '\n' && f.Bytes[i] != '\r' {
				f.Bytes[i] = '*'
			}
		}
	}
	return out
}

// Scrub replaces every sensitive value (API key, values of sensitive
// variables), and the more secrets the caller names, in s by
// textfmt.Redacted, in one pass. A last line of defence for any text that
// goes to the user.
func (c *Config) Scrub(s string, more ...string) string {
	if c == nil {
		return textfmt.Redact(s, more...)
	}
	if len(more) == 0 {
		return textfmt.Redact(s, c.secretValues...)
	}
	return textfmt.Redact(s, append(slices.Clip(c.secretValues), more...)...)
}

// ScrubDiagnostics returns copies of diags with Scrub applied to summaries
// and details, and without the evaluation context (whose values the text
// writer would print).
func (c *Config) ScrubDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		cp := *d
		cp.Summary = c.Scrub(d.Summary)
		cp.Detail = c.Scrub(d.Detail)
		if c != nil && len(c.secretValues) > 0 {
			cp.Expression, cp.EvalContext = nil, nil
		}
		out[i] = &cp
	}
	return out
}
