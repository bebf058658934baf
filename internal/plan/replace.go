package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
)

// Checks of --replace beside those of selectReplace: a replacement the
// --target list leaves out, and the nearest address to a mistyped one.

// checkReplaceTargeted refuses each --replace whose addresses the targets
// leave out of the plan: it would be dropped, and the user asked for it.
// (Terraform plans only what -target selects too; a refusal here costs
// no call, where a run without the replacement may cost one later.) A
// --replace naming several instances passes when the targets keep one.
func (b *builder) checkReplaceTargeted() {
	if b.sel == nil {
		return
	}
	for _, r := range b.opts.Replace {
		r = strings.TrimSpace(r)
		tg := newTarget(r)
		var named []string
		var kinds []kind.Kind
		kept := false
		for _, a := range b.replaced() {
			if tg.names(a) {
				addr := a.String()
				named, kinds = append(named, addr), append(kinds, a.Kind)
				kept = kept || b.selected(addr)
			}
		}
		if len(named) == 0 || kept {
			continue // unknown (its own error), or planned
		}
		slices.Sort(named)
		targets := "--target " + strings.Join(b.opts.Targets, " --target ")
		b.errorf(fmt.Sprintf("--replace %s is not among the targets", r),
			fmt.Sprintf("--replace %s names %s, which %s leaves out of the plan, so %s. Add --target %s, or leave out --replace %s.",
				r, listAddresses(named), targets, notAgain(kinds), r, r))
	}
}

// replaced are the typed addresses of the blocks --replace selected
// (selectReplace): searches, profiles, tracks.
func (b *builder) replaced() []address.Address {
	var out []address.Address
	for _, s := range b.cfg.Searches {
		if b.replace[s.Address] {
			out = append(out, s.Addr)
		}
	}
	for _, p := range b.cfg.Profiles {
		if b.replace[p.Address] {
			out = append(out, p.Addr)
		}
	}
	for _, t := range b.cfg.Tracks {
		if b.replace[t.Address] {
			out = append(out, t.Addr)
		}
	}
	return out
}

// notAgain says what would not happen to the addresses of a --replace
// left out of the plan, of these kinds (one per address).
func notAgain(addrKinds []kind.Kind) string {
	kinds := map[kind.Kind]bool{}
	var row kind.Row
	for _, k := range addrKinds {
		kinds[k] = true
		row = k.Row()
	}
	if len(kinds) > 1 {
		return "they would not be run or read again"
	}
	if row.NotAgain == "" { // a module: what is in it would run again
		row = kind.Search.Row()
	}
	if len(addrKinds) == 1 {
		return row.NotAgain
	}
	return row.NotAgainMany
}

// listAddresses writes addresses for a message: "a", "a and b", "a, b and
// c", and past four "a, b, c and 5 more".
func listAddresses(addrs []string) string {
	const show = 4
	if len(addrs) > show {
		return strings.Join(addrs[:show-1], ", ") + fmt.Sprintf(" and %d more", len(addrs)-show+1)
	}
	if len(addrs) == 1 {
		return addrs[0]
	}
	return strings.Join(addrs[:len(addrs)-1], ", ") + " and " + addrs[len(addrs)-1]
}

// replaceHint is the hint of an unknown --replace: the nearest address
// --replace takes, then how addresses look.
func (b *builder) replaceHint(r string) string {
	if n := catalog.Nearest(r, b.replaceAddresses(), 1); len(n) > 0 {
		return fmt.Sprintf("Did you mean %s? %s", n[0], addressHelp)
	}
	return addressHelp
}

// replaceAddresses are the addresses --replace takes: the searches and
// profiles of the configuration (instances and blocks), its tracks, and
// its modules (everything in them), each once.
func (b *builder) replaceAddresses() []string {
	var out []string
	for _, s := range b.cfg.Searches {
		out = append(out, s.Address, s.Block)
	}
	for _, p := range b.cfg.Profiles {
		out = append(out, p.Address, p.Block)
	}
	for _, t := range b.cfg.Tracks {
		out = append(out, t.Address)
	}
	for _, m := range b.cfg.Modules {
		out = append(out, m.Call, m.Address)
	}
	slices.Sort(out)
	return slices.Compact(slices.DeleteFunc(out, func(a string) bool { return a == "" }))
}
