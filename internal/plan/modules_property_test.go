package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestModulesPlanLikeFlat builds random configurations of markets, each
// written twice: flat (search "cto_m1", enrich "contacts_m1", ...) and
// with a persona module (module "m1" { source = "./persona" ... }, or one
// module block with for_each over the markets), loads both with the real
// loader, and plans them against the same random state (its records at
// the flat addresses, or at the module's). The plans must be the same,
// change by change: actions, calls, credits, their bounds, reasons and
// the people to enrich. And the flat state planned with the module
// configuration plus moved blocks from the flat addresses plans the same
// again, plus one moved change per record and no call more.
func TestModulesPlanLikeFlat(t *testing.T) {
	runs := 150
	if n, err := strconv.Atoi(os.Getenv("PLAN_PROPERTY_RUNS")); err == nil {
		runs = n
	}
	if testing.Short() {
		runs = 60
	}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x30d))
		w := randomMarkets(rng)
		flat := loadMarkets(t, seed, w.flat())
		mods := loadMarkets(t, seed, w.modules(false))
		events := w.events(rng, flat)
		opts := Options{Now: t0, Offline: true, FileExists: func(string) bool { return false }}

		flatPlan, diags := Build(flat, foldAll(t, seed, events, nil), opts)
		if diags.HasErrors() {
			t.Fatalf("seed %d: flat: %s", seed, diags.Error())
		}
		modState := foldAll(t, seed, events, w.toModule)
		modPlan, diags := Build(mods, modState, opts)
		if diags.HasErrors() {
			t.Fatalf("seed %d: modules: %s", seed, diags.Error())
		}
		comparePlans(t, seed, "modules", flatPlan, modPlan, w.toModule)

		moved := loadMarkets(t, seed, w.modules(true))
		movedPlan, diags := Build(moved, foldAll(t, seed, events, nil), opts)
		if diags.HasErrors() {
			t.Fatalf("seed %d: moved: %s", seed, diags.Error())
		}
		var rest []*Change
		nMoved := 0
		for _, c := range movedPlan.Changes {
			if c.Action == Moved {
				nMoved++
				if c.Address != w.toModule(c.MovedFrom) {
					t.Errorf("seed %d: moved %s to %s", seed, c.MovedFrom, c.Address)
				}
				continue
			}
			rest = append(rest, c)
		}
		want := 0
		for _, a := range foldAll(t, seed, events, nil).MovableAddresses() {
			if w.toModule(a) != a {
				want++
			}
		}
		if nMoved != want {
			t.Errorf("seed %d: %d moves, the state has %d records to move", seed, nMoved, want)
		}
		// What a moved record needs besides (a refresh) is planned too;
		// an address only moved says so once, as moved.
		var modRest []*Change
		movedTo := map[string]bool{}
		for _, c := range movedPlan.Changes {
			if c.Action == Moved {
				movedTo[c.Address] = true
			}
		}
		for _, c := range modPlan.Changes {
			if c.Action == None && movedTo[c.Address] {
				continue
			}
			modRest = append(modRest, c)
		}
		comparePlans(t, seed, "moved", &Plan{Changes: modRest, Totals: modPlan.Totals}, &Plan{Changes: rest, Totals: movedPlan.Totals}, func(a string) string { return a })
	}
}

// market is one market of a random configuration.
type market struct {
	name      string
	cities    []string
	max       int // max_results, 0: none
	refresh   int // days, 0: none
	page      string
	limit     int // enrich limit, 0: none
	where     bool
	enrichOwn bool // the market enriches its own CTOs
}

type marketsWorld struct {
	markets  []market
	forEach  bool // one module block with for_each instead of one per market
	allLimit int  // the root's enrich block over every market, -1: none
	pool     int
}

func randomMarkets(rng *rand.Rand) *marketsWorld {
	w := &marketsWorld{forEach: rng.IntN(2) == 0, allLimit: -1 + rng.IntN(6), pool: 10 + rng.IntN(30)}
	allCities := []string{"Berlin", "Wien", "London", "Paris", "Zürich"}
	for i := range 1 + rng.IntN(3) {
		m := market{name: fmt.Sprintf("m%d", i+1), max: []int{0, 3, 8}[rng.IntN(3)], refresh: []int{0, 5}[rng.IntN(2)],
			limit: rng.IntN(5), where: rng.IntN(2) == 0, enrichOwn: rng.IntN(4) > 0}
		for _, c := range allCities {
			if rng.IntN(2) == 0 {
				m.cities = append(m.cities, c)
			}
		}
		if rng.IntN(2) == 0 {
			m.page = fmt.Sprintf("Founder_%d", i+1)
		}
		w.markets = append(w.markets, m)
	}
	return w
}

func hclList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

const marketsAPI = "api {\n  base_url = \"https://api.example.com\"\n  api_key = \"k\"\n  max_credits = 1000000\n}\n"

// flat is the configuration written without modules.
func (w *marketsWorld) flat() map[string]string {
	var b strings.Builder
	b.WriteString(marketsAPI)
	var ctos []string
	for _, m := range w.markets {
		fmt.Fprintf(&b, "search \"cto_%s\" {\n  for_each = toset(%s)\n  keywords = \"CTO\"\n  city = each.value\n%s}\n", m.name, hclList(m.cities), m.searchExtras())
		if m.page != "" {
			fmt.Fprintf(&b, "profile \"founder_%s\" {\n  page_name = %q\n}\n", m.name, m.page)
		}
		if m.enrichOwn {
			fmt.Fprintf(&b, "enrich \"contacts_%s\" {\n  from = [search.cto_%s]\n%s}\n", m.name, m.name, m.enrichExtras())
		}
		ctos = append(ctos, "search.cto_"+m.name)
	}
	if w.allLimit >= 0 {
		fmt.Fprintf(&b, "enrich \"all\" {\n  from = [%s]\n%s}\n", strings.Join(ctos, ", "), limitLine(w.allLimit))
	}
	return map[string]string{"main.leads.hcl": b.String()}
}

func (m market) searchExtras() string {
	s := ""
	if m.max > 0 {
		s += fmt.Sprintf("  max_results = %d\n", m.max)
	}
	if m.refresh > 0 {
		s += fmt.Sprintf("  refresh = \"%dd\"\n", m.refresh)
	}
	return s
}

func (m market) enrichExtras() string {
	s := limitLine(m.limit)
	if m.where {
		s += "  where = lead.company != \"\"\n"
	}
	return s
}

func limitLine(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  limit = %d\n", n)
}

// persona is the module every market calls: what flat writes per market,
// with the market's settings as variables.
const persona = `
variable "cities" {
  type = list(string)
}
variable "max" {
  type = number
}
variable "refresh" {
  type = string
}
variable "page" {
  type = string
}
variable "limit" {
  type = number
}
variable "where" {
  type = bool
}
variable "enrich" {
  type = bool
}
search "cto" {
  for_each    = toset(var.cities)
  keywords    = "CTO"
  city        = each.value
  max_results = var.max > 0 ? var.max : null
  refresh     = var.refresh != "" ? var.refresh : null
}
profile "founder" {
  count     = var.page != "" ? 1 : 0
  page_name = var.page
}
output "ctos" {
  value = [search.cto]
}
`

// personaEnrich is the module's enrich block, in a file of its own only
// for markets that enrich (an enrich block cannot be repeated by count).
const personaEnrich = `
enrich "contacts" {
  from  = [search.cto]
  limit = var.limit > 0 ? var.limit : null
  where = var.where ? lead.company != "" : true
}
`

// modules is the configuration written with the persona module; with
// moves, also the moved blocks from the flat addresses.
func (w *marketsWorld) modules(moves bool) map[string]string {
	files := map[string]string{}
	var b strings.Builder
	b.WriteString(marketsAPI)
	args := func(m market) string {
		refresh := ""
		if m.refresh > 0 {
			refresh = fmt.Sprintf("%dd", m.refresh)
		}
		return fmt.Sprintf("  cities = %s\n  max = %d\n  refresh = %q\n  page = %q\n  limit = %d\n  where = %v\n  enrich = %v\n",
			hclList(m.cities), m.max, refresh, m.page, m.limit, m.where, m.enrichOwn)
	}
	var ctos []string
	for _, m := range w.markets {
		src := "./persona"
		if m.enrichOwn {
			src = "./persona_enrich"
		}
		if w.forEach {
			// One block per kind of persona: for_each over its markets.
			continue
		}
		fmt.Fprintf(&b, "module %q {\n  source = %q\n%s}\n", m.name, src, args(m))
		ctos = append(ctos, "module."+m.name+".ctos")
	}
	if w.forEach {
		for _, enrich := range []bool{true, false} {
			var items []string
			for _, m := range w.markets {
				if m.enrichOwn == enrich {
					items = append(items, fmt.Sprintf("    %s = {\n%s    }", m.name, strings.ReplaceAll(args(m), "  ", "      ")))
				}
			}
			if len(items) == 0 {
				continue
			}
			name, src := "plain", "./persona"
			if enrich {
				name, src = "market", "./persona_enrich"
			}
			fmt.Fprintf(&b, "module %q {\n  for_each = {\n%s\n  }\n  source = %q\n  cities = each.value.cities\n  max = each.value.max\n  refresh = each.value.refresh\n  page = each.value.page\n  limit = each.value.limit\n  where = each.value.where\n  enrich = each.value.enrich\n}\n",
				name, strings.Join(items, "\n"), src)
		}
		for _, m := range w.markets {
			ctos = append(ctos, w.moduleOf(m)+".ctos")
		}
	}
	if w.allLimit >= 0 {
		fmt.Fprintf(&b, "enrich \"all\" {\n  from = [%s]\n%s}\n", strings.Join(ctos, ", "), limitLine(w.allLimit))
	}
	if moves {
		for _, m := range w.markets {
			fmt.Fprintf(&b, "moved {\n  from = search.cto_%s\n  to   = %s.search.cto\n}\n", m.name, w.moduleOf(m))
			if m.page != "" {
				fmt.Fprintf(&b, "moved {\n  from = profile.founder_%s\n  to   = %s.profile.founder[0]\n}\n", m.name, w.moduleOf(m))
			}
			if m.enrichOwn {
				fmt.Fprintf(&b, "moved {\n  from = enrich.contacts_%s\n  to   = %s.enrich.contacts\n}\n", m.name, w.moduleOf(m))
			}
		}
	}
	files["main.leads.hcl"] = b.String()
	files["persona/main.leads.hcl"] = persona
	files["persona_enrich/main.leads.hcl"] = persona
	files["persona_enrich/enrich.leads.hcl"] = personaEnrich
	return files
}

// moduleOf is the module instance of market m: module.m1, or
// module.market["m1"] with for_each.
func (w *marketsWorld) moduleOf(m market) string {
	if !w.forEach {
		return "module." + m.name
	}
	if m.enrichOwn {
		return `module.market["` + m.name + `"]`
	}
	return `module.plain["` + m.name + `"]`
}

// toModule maps a flat address to the module configuration's.
func (w *marketsWorld) toModule(addr string) string {
	for _, m := range w.markets {
		for flat, mod := range map[string]string{
			"search.cto_" + m.name:      w.moduleOf(m) + ".search.cto",
			"profile.founder_" + m.name: w.moduleOf(m) + ".profile.founder[0]",
			"enrich.contacts_" + m.name: w.moduleOf(m) + ".enrich.contacts",
		} {
			if addr == flat || strings.HasPrefix(addr, flat+"[") {
				return mod + addr[len(flat):]
			}
		}
	}
	return addr
}

func loadMarkets(t *testing.T, seed int, files map[string]string) *config.Config {
	t.Helper()
	fsys := fstest.MapFS{}
	for n, s := range files {
		fsys[n] = &fstest.MapFile{Data: []byte(s)}
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: "/cfg", FS: fsys})
	if diags.HasErrors() {
		t.Fatalf("seed %d: %s\n%s", seed, diags.Error(), files["main.leads.hcl"])
	}
	return cfg
}

// events is a random history of the flat configuration: searches run (as
// configured now, or with another request), profiles read, people
// enriched by the blocks, failures.
func (w *marketsWorld) events(rng *rand.Rand, flat *config.Config) []state.Event {
	var evs []state.Event
	leadOf := func(i int) person.Lead {
		id := fmt.Sprintf("%d.p", i)
		l := person.Lead{FullName: "P " + id, Title: "CTO", Company: "Co", NetworkID: id, PageName: "page-" + id}
		if i%3 == 0 {
			l.Company = ""
		}
		return l
	}
	var found []int
	for _, s := range flat.Searches {
		if rng.IntN(3) == 0 {
			continue
		}
		req := s.Request
		if rng.IntN(5) == 0 {
			req = api.SearchRequest{Params: kw("other")}
		}
		body, _ := json.Marshal(req)
		var leads []person.Lead
		for range rng.IntN(10) {
			i := rng.IntN(w.pool)
			leads = append(leads, leadOf(i))
			found = append(found, i)
		}
		at := t0.Add(-time.Duration(1+rng.IntN(9)) * day)
		evs = append(evs, state.Event{At: at, Kind: state.EventSearch, Address: s.Address, Search: &state.SearchEvent{
			Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads, MaxResults: s.MaxResults}})
		if rng.IntN(6) == 0 {
			evs = append(evs, state.Event{At: at.Add(time.Hour), Kind: state.EventFailure, Address: s.Address, Failure: &state.Failure{Message: "500"}})
		}
	}
	for _, p := range flat.Profiles {
		if rng.IntN(2) == 0 {
			body, _ := json.Marshal(p.Request)
			evs = append(evs, state.Event{At: t0.Add(-day), Kind: state.EventProfile, Address: p.Address, Profile: &state.ProfileEvent{
				Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), PageName: p.PageName,
				Profile: person.Profile{FullName: "Founder"}}})
		}
	}
	sort.Ints(found)
	for _, e := range flat.Enriches {
		for _, i := range found {
			if rng.IntN(4) == 0 {
				evs = append(evs, state.Event{At: t0.Add(-day), Kind: state.EventEnrich, Address: e.Address, Enrich: &state.EnrichEvent{
					PersonID: leadOf(i).NetworkID, Credits: 1, Result: person.EnrichedProfile{NetworkID: leadOf(i).NetworkID, Email: "x@example.com", ValidationStatus: "valid"}}})
			}
		}
	}
	return evs
}

// foldAll folds evs into a new state, with every address mapped by rename
// when given.
func foldAll(t *testing.T, seed int, evs []state.Event, rename func(string) string) *state.State {
	t.Helper()
	s := state.New()
	for _, e := range evs {
		if rename != nil {
			e.Address = rename(e.Address)
		}
		if err := s.Fold(e); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	return s
}

// comparePlans checks that b plans what a does, with a's addresses mapped.
func comparePlans(t *testing.T, seed int, what string, a, b *Plan, mapAddr func(string) string) {
	t.Helper()
	type key struct {
		addr   string
		action Action
	}
	got := map[key]*Change{}
	for _, c := range b.Changes {
		got[key{c.Address, c.Action}] = c
	}
	if len(a.Changes) != len(b.Changes) {
		t.Errorf("seed %d (%s): %d changes, want %d", seed, what, len(b.Changes), len(a.Changes))
	}
	for _, c := range a.Changes {
		addr := mapAddr(c.Address)
		if c.Kind == kind.Export || c.Kind == kind.People {
			addr = c.Address
		}
		d := got[key{addr, c.Action}]
		if d == nil {
			t.Errorf("seed %d (%s): no %s change of %s (%s)", seed, what, c.Action, addr, c.Detail)
			continue
		}
		if c.Calls != d.Calls || c.CallsMax != d.CallsMax || c.Credits != d.Credits || c.CreditsMax != d.CreditsMax ||
			c.Reason != d.Reason || strings.Join(c.People(), ",") != strings.Join(d.People(), ",") {
			t.Errorf("seed %d (%s): %s plans %d..%d calls, %d..%d credits (%s, %v); want %d..%d, %d..%d (%s, %v)", seed, what, addr,
				d.Calls, d.CallsMax, d.Credits, d.CreditsMax, d.Reason, d.PersonIDs, c.Calls, c.CallsMax, c.Credits, c.CreditsMax, c.Reason, c.PersonIDs)
		}
	}
	ta, tb := a.Totals, b.Totals
	ta.Moves, tb.Moves = 0, 0
	if ta != tb {
		t.Errorf("seed %d (%s): totals %+v, want %+v", seed, what, tb, ta)
	}
}
