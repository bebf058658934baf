package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
)

// target is an address given with --target or --replace, read once: it
// names itself, every instance of a block, everything inside a module
// (see address.Address.Contains).
type target struct {
	text string
	p    address.Address
	// parsed is false for text that is no address: it names only itself.
	parsed bool
}

func newTarget(t string) target {
	p, err := address.Parse(t)
	return target{text: t, p: p, parsed: err == nil}
}

// names reports whether t names the typed address a (a configuration
// block's Addr): no text is read again.
func (t target) names(a address.Address) bool { return t.parsed && t.p.Contains(a) }

// namesText reports whether t names addr, an address of the state (read
// here, where it comes from the state's keys).
func (t target) namesText(addr string) bool {
	if addr == t.text {
		return true
	}
	if !t.parsed {
		return false
	}
	a, err := address.Parse(addr)
	return err == nil && t.p.Contains(a)
}

// selectTargets resolves --target into the set of planned addresses.
func (b *builder) selectTargets() {
	if len(b.opts.Targets) == 0 {
		return
	}
	b.sel = map[string]bool{}
	addSources := func(from []string) {
		for _, a := range b.cfg.Resolve(from) {
			b.sel[a] = true
		}
	}
	for _, t := range b.opts.Targets {
		t = strings.TrimSpace(t)
		tg := newTarget(t)
		found := false
		for _, s := range b.cfg.Searches {
			if tg.names(s.Addr) {
				b.sel[s.Address], found = true, true
			}
		}
		for _, p := range b.cfg.Profiles {
			if tg.names(p.Addr) {
				b.sel[p.Address], found = true, true
			}
		}
		for _, im := range b.cfg.Imports {
			if im.Address == t {
				b.sel[im.Address], found = true, true
			}
		}
		for _, e := range b.cfg.Enriches {
			if tg.names(e.Addr) {
				b.sel[e.Address], found = true, true
				addSources(e.From)
			}
		}
		// A track reads the people state holds: its sources need not run.
		for _, tr := range b.cfg.Tracks {
			if tr.Address == t {
				b.sel[tr.Address], found = true, true
			}
		}
		for _, x := range b.cfg.Exports {
			if tg.names(x.Addr) {
				b.sel[x.Address], found = true, true
				for _, sh := range x.Sheets {
					addSources(sh.From)
				}
			}
		}
		for _, addr := range b.stateAddresses() {
			if tg.namesText(addr) {
				b.sel[addr], found = true, true
			}
		}
		if !found {
			hint := addressHelp
			if n := catalog.Nearest(t, b.targetAddresses(), 1); len(n) > 0 {
				hint = fmt.Sprintf("Did you mean %s? %s", n[0], addressHelp)
			}
			b.errorf(fmt.Sprintf("Unknown target %q", t),
				fmt.Sprintf("--target %s names nothing in the configuration or the state. %s", t, hint))
		}
	}
}

// targetAddresses are the addresses --target takes: every instance and
// block of the configuration and of the state, each once.
func (b *builder) targetAddresses() []string {
	seen := map[string]bool{}
	var out []string
	add := func(as ...string) {
		for _, a := range as {
			if a != "" && !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	for _, s := range b.cfg.Searches {
		add(s.Address, s.Block)
	}
	for _, p := range b.cfg.Profiles {
		add(p.Address, p.Block)
	}
	for _, im := range b.cfg.Imports {
		add(im.Address)
	}
	for _, e := range b.cfg.Enriches {
		add(e.Address)
	}
	for _, t := range b.cfg.Tracks {
		add(t.Address)
	}
	for _, x := range b.cfg.Exports {
		add(x.Address)
	}
	for _, m := range b.cfg.Modules {
		add(m.Call, m.Address)
	}
	for _, a := range b.stateAddresses() {
		add(a, blockOf(a))
	}
	return out
}

// selectReplace resolves --replace into instance addresses.
func (b *builder) selectReplace() {
	b.replace = map[string]bool{}
	for _, r := range b.opts.Replace {
		r = strings.TrimSpace(r)
		tg := newTarget(r)
		found := false
		for _, s := range b.cfg.Searches {
			if tg.names(s.Addr) {
				b.replace[s.Address], found = true, true
			}
		}
		for _, p := range b.cfg.Profiles {
			if tg.names(p.Addr) {
				b.replace[p.Address], found = true, true
			}
		}
		for _, t := range b.cfg.Tracks {
			if t.Address == r {
				b.replace[t.Address], found = true, true // every person read again
			}
		}
		if found {
			continue
		}
		switch k := address.Kind(r); {
		case k == kind.Enrich || k == kind.Export:
			b.errorf(fmt.Sprintf("Cannot replace %s", r),
				"Only searches, profiles and tracks can be replaced. To enrich people again, set refresh or refresh_on on the enrich block; to rewrite a spreadsheet, run \"leadsync export\".")
		default:
			b.errorf(fmt.Sprintf("Unknown address to replace %q", r),
				fmt.Sprintf("--replace %s names no search, profile or track of the configuration. %s", r, b.replaceHint(r)))
		}
	}
	b.checkReplaceTargeted()
}

// stateAddresses lists the search and profile addresses state knows of.
func (b *builder) stateAddresses() []string {
	var out []string
	for a := range b.st.Searches {
		out = append(out, a)
	}
	for a := range b.st.Profiles {
		out = append(out, a)
	}
	for a := range b.st.Imports {
		out = append(out, a)
	}
	for a := range b.st.Splits {
		if _, ok := b.st.Searches[a]; !ok {
			out = append(out, a) // a split run under way, never completed
		}
	}
	for a := range b.st.Failures {
		if _, ok := b.st.Searches[a]; ok {
			continue
		}
		if _, ok := b.st.Splits[a]; ok {
			continue
		}
		if _, ok := b.st.Profiles[a]; ok {
			continue
		}
		if k := address.Kind(a); k == kind.Search || k == kind.Profile {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}
