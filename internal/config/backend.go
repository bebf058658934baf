package config

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// decodeBackend reads a leadsync { backend "NAME" { ... } } block. The kind
// is looked up in the registry (internal/state/backend), which gives its
// schema and its checks: config keeps the block generic (its attributes
// evaluated as strings, with their ranges) and knows no backend itself.
func (l *loader) decodeBackend(blocks hcl.Blocks) {
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate backend block", "There is already a backend block at %s; a configuration has one state backend.", shortRange(blocks[0].DefRange))
			continue
		}
		def := backend.Lookup(b.Labels[0])
		if def == nil {
			l.errorf(b.LabelRanges[0].Ptr(), "Unsupported backend", "The backend %q is not supported; use %s, or remove the block for the local state file.", b.Labels[0], backend.Blocks())
			continue
		}
		content, ds := b.Body.Content(def.Schema)
		l.add(ds)
		blk := &backend.Block{Type: def.Name, Attrs: map[string]*backend.Attr{}, DeclRange: b.DefRange}
		for _, as := range def.Schema.Attributes {
			if a := content.Attributes[as.Name]; a != nil {
				blk.Attrs[as.Name] = l.backendAttr(a, slices.Contains(def.Secrets, as.Name))
			}
		}
		for _, name := range def.EnvSecrets {
			if v := envValue(l.opts.Environ, name); v != "" {
				l.secrets[v] = true
			}
		}
		if def.Check != nil {
			l.add(def.Check(blk, func(name string) string { return envValue(l.opts.Environ, name) }))
		}
		l.cfg.Settings.Backend = blk
	}
}

// backendAttr evaluates one attribute of a backend block as a string; a
// secret one is masked where it is written and scrubbed from messages.
func (l *loader) backendAttr(a *hcl.Attribute, secret bool) *backend.Attr {
	attr := &backend.Attr{Literal: len(a.Expr.Variables()) == 0, NameRange: a.NameRange, Range: a.Expr.Range()}
	if secret && attr.Literal {
		l.secretRange(a.Expr)
	}
	if s, sens, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
		attr.Value, attr.Known, attr.Sensitive = s, true, sens
		if secret {
			l.secrets[s] = true
		}
	}
	return attr
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
