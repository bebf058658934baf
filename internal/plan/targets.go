package plan

import (
	"fmt"
	"slices"
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
		found := b.markNamed(tg, b.sel)
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
		for _, x := range b.cfg.Exports {
			if tg.names(x.Addr) {
				b.sel[x.Address], found = true, true
				for _, sh := range x.Sheets {
					addSources(sh.From)
				}
			}
		}
		for _, addr := range b.index().stateNamed(tg) {
			b.sel[addr], found = true, true
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

// markNamed sets into[a] for every search and profile instance tg names
// and every track it is the address of, and reports whether there was
// one: what --target and --replace both select. (A track reads the people
// the state holds: its sources need not run.)
func (b *builder) markNamed(tg target, into map[string]bool) bool {
	found := false
	if tg.parsed {
		x := b.index()
		for _, i := range x.searches.Named(tg.p) {
			into[b.cfg.Searches[i].Address], found = true, true
		}
		for _, i := range x.profiles.Named(tg.p) {
			into[b.cfg.Profiles[i].Address], found = true, true
		}
	}
	for _, tr := range b.cfg.Tracks {
		if tr.Address == tg.text {
			into[tr.Address], found = true, true
		}
	}
	return found
}

// targetAddresses are the addresses --target takes: every instance and
// block of the configuration and of the state, each once.
func (b *builder) targetAddresses() []string {
	x := b.index()
	if x.names != nil {
		return x.names
	}
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
	for _, sa := range x.state {
		add(sa.addr, blockOf(sa.addr))
	}
	x.names = out
	return out
}

// selectReplace resolves --replace into instance addresses.
func (b *builder) selectReplace() {
	b.replace = map[string]bool{}
	for _, r := range b.opts.Replace {
		r = strings.TrimSpace(r)
		tg := newTarget(r)
		if b.markNamed(tg, b.replace) { // a track's: every person read again
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

// stateAddr is an address state knows of, with its kind: known from the
// record that holds it, read from the address only for a failure.
type stateAddr struct {
	addr string
	kind kind.Kind
}

// stateAddresses lists the search, profile and import addresses state
// knows of, in address order.
func (b *builder) stateAddresses() []stateAddr {
	var out []stateAddr
	for a := range b.st.Searches {
		out = append(out, stateAddr{a, kind.Search})
	}
	for a := range b.st.Profiles {
		out = append(out, stateAddr{a, kind.Profile})
	}
	for a := range b.st.Imports {
		out = append(out, stateAddr{a, kind.Import})
	}
	for a := range b.st.Splits {
		if _, ok := b.st.Searches[a]; !ok {
			out = append(out, stateAddr{a, kind.Search}) // a split run under way, never completed
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
		// A failure is kept by address alone, of any kind: its kind is
		// read here, once.
		if k := address.Kind(a); k == kind.Search || k == kind.Profile {
			out = append(out, stateAddr{a, k})
		}
	}
	slices.SortFunc(out, func(x, y stateAddr) int { return strings.Compare(x.addr, y.addr) })
	return out
}
