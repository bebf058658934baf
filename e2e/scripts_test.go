package e2e

// The testscript scripts of testdata/script: the real CLI against a
// sandbox, each script its own folder, on the local state file
// (TestScripts) and on PostgreSQL (TestScriptsPG); and the commands the
// scripts have besides leadsync.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// scriptsDir holds the scripts, one .txtar file each.
const scriptsDir = "testdata/script"

// sandboxKey finds a script's scriptSandbox among its env.Values.
type sandboxKey struct{}

// scriptSandbox is the sandbox of one script and the counters of its last
// sandbox-mark.
type scriptSandbox struct {
	srv  *sandbox.Server
	mark sandbox.Stats
}

// TestScripts runs testdata/script/*.txtar: the real CLI, as a separate
// process, against a sandbox served on loopback for each script.
//
// Each script has $SANDBOX_URL (also as LEADSYNC_VAR_sandbox_url, so that a
// configuration can say base_url = var.sandbox_url) and LEADSYNC_API_KEY set
// to the key the sandbox accepts. Extra commands:
//
//	sandbox-faults k=v ...   set fault knobs (500, drop, truncate, html, slow, storm, retry-after, revoke-after, overfull, seed)
//	sandbox-credits N        set the enrich credit balance
//	sandbox-quota N          set the remaining requests this month
//	sandbox-drift DRIFT EPOCH [private-positions]  move the population to EPOCH with a share
//	                         DRIFT moving at each epoch (docs/sandbox.md); the calls from then
//	                         on see it; private-positions: private profiles show their positions
//	                         and private members move too (sandbox.Options.PrivatePositions)
//	sandbox-mark             remember the counters; sandbox-stats prints what came since
//	sandbox-stats            print counters since the last mark, one key=value per line
//	csv-env FILE ROW VAR=Header...  set VAR to the cell of data row ROW (1 = first
//	                         after the header) under Header, so that a script can name
//	                         a person the sandbox returned without hard-coding them
//	csv-cut SRC DST FROM-TO Header[=New]... [+Header=value]...  write DST, a CSV of
//	                         the data rows FROM to TO (1 = first after the header) of
//	                         SRC under those headers (renamed to New), plus columns of
//	                         one value: a list file made of what the sandbox returned,
//	                         without hard-coding people
//	xlsx-sheets DST SHEET=SRC.csv...  write DST, a workbook with one sheet per CSV file
//	                         (its cells as text), in the order given: a list split over
//	                         sheets, made of what the sandbox returned
//	within-plan FILE         the calls and credits since the last mark are within the
//	                         plan --json in FILE: at least its certain counts, at most its bounds
//	[!] split-truth ADDRESS  the split search's people are (or, negated, are some of)
//	                         those the sandbox matches (see cmdSplitTruth)
//	drift-truth TRACK ENRICH the people TRACK read since the sandbox left epoch 0 show exactly
//	                         the changes the sandbox made, and ENRICH enriched again exactly
//	                         those of its contacts whose company changed (see cmdDriftTruth)
//	dropped-truth TRACK SEARCH [ENRICH]  the people TRACK read who are no longer in SEARCH's
//	                         last run were read after it and show the sandbox's job changes
//	                         (and ENRICH enriched again exactly those of them it enriched whose
//	                         company changed); sets DROPPED_NAME to one of them with a job
//	                         change (see cmdDroppedTruth)
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, scriptParams())
}

// scriptParams are the parameters TestScripts runs the scripts with.
func scriptParams() testscript.Params {
	return testscript.Params{
		Dir:                 scriptsDir,
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			srv, url := serveSandbox(sandbox.Options{
				Seed:          1,
				RateLimit:     scriptServerRate,
				RateWindow:    scriptServerWindow,
				SearchLatency: [2]time.Duration{5 * time.Millisecond, 40 * time.Millisecond},
			}, env.Defer)
			env.Values[sandboxKey{}] = &scriptSandbox{srv: srv, mark: srv.Stats()}
			env.Setenv("SANDBOX_URL", url)
			env.Setenv("LEADSYNC_VAR_sandbox_url", url)
			env.Setenv("LEADSYNC_API_KEY", sandbox.DefaultKey)
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sandbox-faults":  cmdSandboxFaults,
			"sandbox-credits": cmdSandboxCredits,
			"sandbox-quota":   cmdSandboxQuota,
			"sandbox-drift":   cmdSandboxDrift,
			"sandbox-mark":    cmdSandboxMark,
			"sandbox-stats":   cmdSandboxStats,
			"within-plan":     cmdWithinPlan,
			"split-truth":     cmdSplitTruth,
			"drift-truth":     cmdDriftTruth,
			"dropped-truth":   cmdDroppedTruth,
			"csv-env":         cmdCSVEnv,
			"csv-cut":         cmdCSVCut,
			"xlsx-sheets":     cmdXLSXSheets,
		},
	}
}

// TestScriptsPG runs the end-to-end scripts that do not look at the state
// file itself (its path, journal or lock) against the pg backend: each
// script gets a schema of its own (LEADSYNC_TEST_PG_SCHEMA, test only), so
// plan, apply, saved plans, faults and exports behave the same on both.
// The schemas come migrated from a pool (testenv.SchemaPool): an ended
// script's schema, emptied, serves the next.
func TestScriptsPG(t *testing.T) {
	t.Parallel()
	cs := pgConnStr(t)
	all, err := filepath.Glob(filepath.Join(scriptsDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if strings.Contains(src, "state.json") || strings.Contains(src, "state.db") || strings.Contains(src, ".leadsync/state") || strings.Contains(src, "force-unlock") || strings.Contains(src, "--state") {
			continue // about the local file itself
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no script to run on pg")
	}
	schemas := testenv.NewSchemaPool(t, cs, "script_", func(schema string) error { return migrateSchema(cs, schema) })
	p := scriptParams()
	p.Dir, p.Files = "", files
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		schema, err := schemas.Take()
		if err != nil {
			return err
		}
		env.Setenv(testBackendEnv, schema)
		env.Setenv("LEADSYNC_PG_CONN_STR", cs)
		workDir := env.WorkDir
		env.Defer(func() {
			// The state went to the database, not to a file.
			filepath.WalkDir(workDir, func(path string, d os.DirEntry, err error) error {
				if err == nil && (d.Name() == "state.json" || d.Name() == "state.db") {
					env.T().Fatal("a state file was written on the pg backend: " + path)
				}
				return nil
			})
			if err := schemas.Give(schema); err != nil {
				env.T().Log(err)
			}
		})
		return nil
	}
	testscript.Run(t, p)
}

func scriptSB(ts *testscript.TestScript) *scriptSandbox {
	return ts.Value(sandboxKey{}).(*scriptSandbox)
}

func cmdSandboxFaults(ts *testscript.TestScript, neg bool, args []string) {
	var f sandbox.Faults
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("sandbox-faults: want key=value, got %q", a)
		}
		num := func() float64 {
			x, err := strconv.ParseFloat(v, 64)
			ts.Check(err)
			return x
		}
		switch k {
		case "500":
			f.Status500 = num()
		case "drop":
			f.Drop = num()
		case "truncate":
			f.Truncate = num()
		case "html":
			f.HTML = num()
		case "slow":
			f.Slow = num()
		case "slowby":
			d, err := time.ParseDuration(v)
			ts.Check(err)
			f.SlowBy = d
		case "storm":
			f.Storm429 = int(num())
		case "retry-after":
			f.RetryAfter = v
		case "revoke-after":
			f.RevokeKeyAfter = int(num())
		case "seed":
			f.Seed = int64(num())
		case "overfull":
			f.Overfull = num() != 0
		default:
			ts.Fatalf("sandbox-faults: unknown knob %q", k)
		}
	}
	ts.Check(f.Validate())
	scriptSB(ts).srv.SetFaults(f)
}

func intArg(ts *testscript.TestScript, name string, args []string) int {
	if len(args) != 1 {
		ts.Fatalf("usage: %s N", name)
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	return n
}

func cmdSandboxCredits(ts *testscript.TestScript, neg bool, args []string) {
	scriptSB(ts).srv.SetCredits(intArg(ts, "sandbox-credits", args))
}

func cmdSandboxQuota(ts *testscript.TestScript, neg bool, args []string) {
	scriptSB(ts).srv.SetQuota(intArg(ts, "sandbox-quota", args))
}

func cmdSandboxDrift(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (len(args) == 3 && args[2] != "private-positions") {
		ts.Fatalf("usage: sandbox-drift DRIFT EPOCH [private-positions]")
	}
	scriptSB(ts).srv.SetPrivatePositions(len(args) == 3)
	drift, err := strconv.ParseFloat(args[0], 64)
	ts.Check(err)
	epoch, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(scriptSB(ts).srv.SetDrift(drift, epoch))
}

func cmdSandboxMark(ts *testscript.TestScript, neg bool, args []string) {
	sb := scriptSB(ts)
	sb.mark = sb.srv.Stats()
}

// cmdSandboxStats prints the counters since the last mark.
func cmdSandboxStats(ts *testscript.TestScript, neg bool, args []string) {
	sb := scriptSB(ts)
	now := sb.srv.Stats()
	m := sb.mark
	lines := map[string]int{
		"calls":        now.Calls - m.Calls,
		"accepted":     now.Accepted - m.Accepted,
		"rate_limited": now.RateLimited - m.RateLimited,
		"forbidden":    now.Forbidden - m.Forbidden,
		"credits":      now.CreditsSpent - m.CreditsSpent,
		"requests":     now.RequestsSpent - m.RequestsSpent,
		"search":       now.ByOp[sandbox.OpSearch] - m.ByOp[sandbox.OpSearch] + now.ByOp[sandbox.OpSearchV2] - m.ByOp[sandbox.OpSearchV2],
		"page":         now.ByOp[sandbox.OpPage] - m.ByOp[sandbox.OpPage] + now.ByOp[sandbox.OpPageV2] - m.ByOp[sandbox.OpPageV2],
		"enrich":       now.ByOp[sandbox.OpEnrich] - m.ByOp[sandbox.OpEnrich],
		"billing":      now.ByOp[sandbox.OpBilling] - m.ByOp[sandbox.OpBilling],
		"fields":       now.ByOp[sandbox.OpFields] - m.ByOp[sandbox.OpFields],
	}
	// enrich_twice counts people paid for more than once, over the whole script.
	twice := 0
	for _, n := range now.Enriched {
		if n > 1 {
			twice++
		}
	}
	lines["enrich_twice"] = twice
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(ts.Stdout(), "%s=%d\n", k, lines[k])
	}
}

// cmdWithinPlan checks what the sandbox saw since the last mark against a
// saved `plan --json`: searches, profile reads and enrichments together at
// least totals.calls and at most totals.calls_max; credits likewise; the
// requests of the monthly quota spent at most totals.quota_calls_max. The
// billing call apply makes to plan is not one of the plan's calls (nor its
// request of the quota).
func cmdWithinPlan(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: within-plan PLAN.json")
	}
	var p struct {
		Totals struct {
			Calls         int `json:"calls"`
			CallsMax      int `json:"calls_max"`
			Credits       int `json:"credits"`
			CreditsMax    int `json:"credits_max"`
			QuotaCallsMax int `json:"quota_calls_max"`
		} `json:"totals"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &p))
	sb := scriptSB(ts)
	now, mark := sb.srv.Stats(), sb.mark
	calls := 0
	for _, op := range []sandbox.Op{sandbox.OpSearch, sandbox.OpSearchV2, sandbox.OpPage, sandbox.OpPageV2, sandbox.OpEnrich} {
		calls += now.ByOp[op] - mark.ByOp[op]
	}
	credits := now.CreditsSpent - mark.CreditsSpent
	// Every billing call is taken as charged: a retried one makes this
	// count lower, never higher, so the bound below stays sound.
	requests := now.RequestsSpent - mark.RequestsSpent - (now.ByOp[sandbox.OpBilling] - mark.ByOp[sandbox.OpBilling])
	ok := calls >= p.Totals.Calls && calls <= p.Totals.CallsMax && credits >= p.Totals.Credits && credits <= p.Totals.CreditsMax &&
		requests <= p.Totals.QuotaCallsMax
	if ok == neg {
		ts.Fatalf("made %d calls, spent %d credits and %d requests of the quota; the plan said calls %d..%d, credits %d..%d, requests at most %d",
			calls, credits, requests, p.Totals.Calls, p.Totals.CallsMax, p.Totals.Credits, p.Totals.CreditsMax, p.Totals.QuotaCallsMax)
	}
	fmt.Fprintf(ts.Stdout(), "calls=%d (plan %d..%d) credits=%d (plan %d..%d) requests=%d (plan at most %d)\n",
		calls, p.Totals.Calls, p.Totals.CallsMax, credits, p.Totals.Credits, p.Totals.CreditsMax, requests, p.Totals.QuotaCallsMax)
}

func cmdCSVEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: csv-env FILE ROW VAR=Header...")
	}
	recs, err := csv.NewReader(strings.NewReader(ts.ReadFile(args[0]))).ReadAll()
	ts.Check(err)
	row, err := strconv.Atoi(args[1])
	ts.Check(err)
	if len(recs) == 0 || row < 1 || row >= len(recs) {
		ts.Fatalf("csv-env: %s has %d data rows, no row %d", args[0], len(recs)-1, row)
	}
	for _, a := range args[2:] {
		name, header, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("csv-env: want VAR=Header, got %q", a)
		}
		col := slices.Index(recs[0], header)
		if col < 0 {
			ts.Fatalf("csv-env: %s has no column %q (header %q)", args[0], header, recs[0])
		}
		ts.Setenv(name, recs[row][col])
	}
}

func cmdCSVCut(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: csv-cut SRC DST FROM-TO Header[=New]...")
	}
	recs, err := csv.NewReader(strings.NewReader(ts.ReadFile(args[0]))).ReadAll()
	ts.Check(err)
	lo, hi, ok := strings.Cut(args[2], "-")
	from, err1 := strconv.Atoi(lo)
	to, err2 := strconv.Atoi(hi)
	if !ok || err1 != nil || err2 != nil || from < 1 || to < from || to >= len(recs) {
		ts.Fatalf("csv-cut: rows %q of %s, which has %d data rows", args[2], args[0], len(recs)-1)
	}
	var cols []int
	var header, consts []string
	for _, a := range args[3:] {
		name, renamed, _ := strings.Cut(a, "=")
		if h, ok := strings.CutPrefix(name, "+"); ok {
			header, consts = append(header, h), append(consts, renamed)
			continue
		}
		if len(consts) > 0 {
			ts.Fatalf("csv-cut: columns of one value come last")
		}
		col := slices.Index(recs[0], name)
		if col < 0 {
			ts.Fatalf("csv-cut: %s has no column %q (header %q)", args[0], name, recs[0])
		}
		if renamed == "" {
			renamed = name
		}
		cols, header = append(cols, col), append(header, renamed)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	ts.Check(w.Write(header))
	for _, rec := range recs[from : to+1] {
		row := make([]string, len(cols), len(header))
		for i, c := range cols {
			row[i] = rec[c]
		}
		ts.Check(w.Write(append(row, consts...)))
	}
	w.Flush()
	ts.Check(w.Error())
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(b.String()), 0o644))
}

func cmdXLSXSheets(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: xlsx-sheets DST SHEET=SRC.csv...")
	}
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	for i, a := range args[1:] {
		name, src, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("xlsx-sheets: want SHEET=SRC.csv, got %q", a)
		}
		recs, err := csv.NewReader(strings.NewReader(ts.ReadFile(src))).ReadAll()
		ts.Check(err)
		if i == 0 {
			ts.Check(f.SetSheetName("Sheet1", name))
		} else if _, err := f.NewSheet(name); err != nil {
			ts.Fatalf("xlsx-sheets: %v", err)
		}
		for r, rec := range recs {
			cell, err := excelize.CoordinatesToCellName(1, r+1)
			ts.Check(err)
			ts.Check(f.SetSheetRow(name, cell, &rec))
		}
	}
	dst := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(f.SaveAs(dst))
}

// cmdSplitTruth checks a split search's record in the script's state
// against the sandbox's own set of matching people, by network ID:
//
//	split-truth ADDRESS   the run is complete and found exactly them
//	! split-truth ADDRESS the run is incomplete and found some of them, no one else
//
// It prints people=N truth=N complete=B sub_searches=N, and the network IDs
// found but not matching (extra) and matching but not found (missing).
func cmdSplitTruth(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: split-truth ADDRESS")
	}
	// On the pg backend under TestScriptsPG, in the script's schema.
	st, err := loadState(ts.MkAbs("."), ts.Getenv("LEADSYNC_PG_CONN_STR"), ts.Getenv(testBackendEnv))
	ts.Check(err)
	rec := st.Searches[args[0]]
	if rec == nil || rec.Split == nil {
		ts.Fatalf("%s: no split search in state", args[0])
	}
	ms, err := scriptSB(ts).srv.Matching(rec.Request)
	ts.Check(err)
	found, truth, err := splitSets(st, rec, ms)
	ts.Check(err)
	extra, missing := setDiff(found, truth), setDiff(truth, found)
	ss := rec.SplitSummary()
	fmt.Fprintf(ts.Stdout(), "people=%d truth=%d complete=%v sub_searches=%d\n", len(found), len(truth), ss.Complete, ss.SubSearches)
	if len(extra) > 0 {
		fmt.Fprintf(ts.Stdout(), "extra (found, not matching): %d: %s\n", len(extra), sample(extra))
	}
	if len(missing) > 0 {
		fmt.Fprintf(ts.Stdout(), "missing (matching, not found): %d: %s\n", len(missing), sample(missing))
	}
	if ss.People != len(found) {
		ts.Fatalf("%s: the record says %d people found but holds %d (max_results below the truth?)", args[0], ss.People, len(found))
	}
	switch {
	case len(extra) > 0:
		ts.Fatalf("%s: %d people found that the sandbox does not match", args[0], len(extra))
	case !neg && (!ss.Complete || len(missing) > 0):
		ts.Fatalf("%s: %d people found, complete=%v; the sandbox has %d (%d missing)", args[0], len(found), ss.Complete, len(truth), len(missing))
	case neg && (ss.Complete || len(missing) == 0):
		ts.Fatalf("%s: complete=%v with %d of %d people; want incomplete", args[0], ss.Complete, len(found), len(truth))
	}
}

// cmdDriftTruth checks what the track TRACK recorded against the sandbox's
// ground truth (sandbox.Server.Changes), for a script that read its people
// at epoch 0 and then moved the sandbox on (sandbox-drift) and read them
// again:
//
//   - each person TRACK read has, in their history, a drift by TRACK of
//     every job field (title, company) the sandbox changed between epoch 0
//     and now (from its state at epoch 0 to its state now), and none else;
//     a person who left the network has the status "left", one who turned
//     private "private";
//   - each person ENRICH enriched was enriched again (the sandbox's
//     enrichment count for them is 2, their e-mail the new one) exactly
//     when their company changed and they are still on the network.
//
// It prints tracked=N job_changes=N left=N private=N enriched_again=N.
func cmdDriftTruth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: drift-truth TRACK ENRICH")
	}
	track, enrich := args[0], args[1]
	st, err := loadState(ts.MkAbs("."), ts.Getenv("LEADSYNC_PG_CONN_STR"), ts.Getenv(testBackendEnv))
	ts.Check(err)
	sb := scriptSB(ts).srv
	// The net change of each member since epoch 0: the first change's
	// Before, the last change's After and kind.
	type net struct {
		before, after sandbox.Job
		last          sandbox.DriftKind
		moved         bool
		private       bool // turned private since epoch 0
	}
	truth := map[string]*net{}
	for _, c := range sb.Changes() {
		n := truth[strings.ToLower(c.PageName)]
		if n == nil {
			n = &net{before: c.Before}
			truth[strings.ToLower(c.PageName)] = n
		}
		n.after, n.last = c.After, c.Kind
		n.moved = n.moved || c.Kind == sandbox.DriftJob
		n.private = n.private || c.Kind == sandbox.DriftPrivate
	}
	enrichedTwice := sb.Stats().Enriched
	var tracked, jobs, left, private, privateJobs, again int
	for _, p := range st.People {
		if p.CheckedAt == nil {
			continue // never read by a track
		}
		tracked++
		var fields []string
		for _, d := range p.History {
			if d.By == track {
				fields = append(fields, d.Field)
			}
		}
		n := truth[strings.ToLower(p.Lead.PageName)]
		var want []string
		switch {
		case n == nil:
		case n.last == sandbox.DriftLeft:
			want, left = []string{state.DriftStatus}, left+1
			if p.Status != state.StatusLeft {
				ts.Fatalf("%s left the network; state says status %q", p.Lead.PageName, p.Status)
			}
		default:
			// A job change is seen unless the member turned private and
			// the sandbox's private answers show no position; one that
			// turned private is recorded so after the job change.
			now := n.after
			if n.private && !sb.PrivatePositions() {
				now = n.before
			}
			if n.before.Title != now.Title {
				want = append(want, state.DriftTitle)
			}
			if n.before.Company != now.Company {
				want = append(want, state.DriftCompany)
			}
			if len(want) > 0 {
				jobs++
				if n.private {
					privateJobs++
				}
			}
			if n.private {
				want, private = append(want, state.DriftStatus), private+1
				if p.Status != state.StatusPrivate {
					ts.Fatalf("%s turned private; state says status %q", p.Lead.PageName, p.Status)
				}
			}
			if p.Lead.Title != now.Title || p.Lead.Company != now.Company {
				ts.Fatalf("%s is %s at %s now; state holds %s at %s", p.Lead.PageName, now.Title, now.Company, p.Lead.Title, p.Lead.Company)
			}
		}
		if !slices.Equal(fields, want) {
			ts.Fatalf("%s: the sandbox changed %v since epoch 0; %s recorded %v", p.Lead.PageName, want, track, fields)
		}
		if p.Enrichment == nil || p.Enrichment.By != enrich {
			continue
		}
		companyChanged := n != nil && n.last == sandbox.DriftJob && n.before.Company != n.after.Company
		switch times := enrichedTwice[p.Lead.PageName]; {
		case companyChanged && (times != 2 || p.Enrichment.Result.Email != n.after.Email):
			ts.Fatalf("%s changed company (%s -> %s): enriched %d times, e-mail %q; want twice and %q", p.Lead.PageName,
				n.before.Company, n.after.Company, times, p.Enrichment.Result.Email, n.after.Email)
		case !companyChanged && times != 1:
			ts.Fatalf("%s kept their company: enriched %d times, want once", p.Lead.PageName, times)
		case companyChanged:
			again++
		}
	}
	fmt.Fprintf(ts.Stdout(), "tracked=%d job_changes=%d left=%d private=%d private_job_changes=%d enriched_again=%d\n",
		tracked, jobs, left, private, privateJobs, again)
}

// cmdDroppedTruth checks that the track TRACK keeps watching the people who
// dropped out of SEARCH: for a script that read SEARCH's people at epoch 0,
// moved the sandbox on, ran SEARCH again and then read TRACK's people,
// each person TRACK read before who is not among SEARCH's leads now was
// read by TRACK after that run, and their job (title, company) in state is
// the sandbox's now; those the sandbox moved to another job have a drift
// by TRACK. It fails when nobody dropped out or nobody of them changed
// jobs (the script would prove nothing), sets DROPPED_NAME to the full name
// of the first of them (by page name) with a job change, and prints
// dropped=N job_changes=N. With ENRICH, each of them ENRICH enriched was
// enriched again (the sandbox's count for them is 2, their e-mail the new
// one) exactly when their company changed and they are on the network
// and public (refresh_on = ["company"]: they stay the block's people), and
// it prints enriched_again=N too.
func cmdDroppedTruth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: dropped-truth TRACK SEARCH [ENRICH]")
	}
	track, search := args[0], args[1]
	enrich := ""
	if len(args) == 3 {
		enrich = args[2]
	}
	st, err := loadState(ts.MkAbs("."), ts.Getenv("LEADSYNC_PG_CONN_STR"), ts.Getenv(testBackendEnv))
	ts.Check(err)
	rec := st.Searches[search]
	if rec == nil {
		ts.Fatalf("the state holds no run of %s", search)
	}
	inSearch := map[string]bool{}
	for _, id := range rec.LeadIDs {
		inSearch[id] = true
	}
	now := map[string]sandbox.Job{}    // the job of each person the sandbox moved, now
	before := map[string]sandbox.Job{} // and before their first move
	for _, c := range scriptSB(ts).srv.Changes() {
		if c.Kind == sandbox.DriftJob {
			key := strings.ToLower(c.PageName)
			if _, ok := before[key]; !ok {
				before[key] = c.Before
			}
			now[key] = c.After
		}
	}
	enrichedTimes := scriptSB(ts).srv.Stats().Enriched
	var dropped []*state.Person
	for _, p := range st.People {
		if _, ok := p.Tracked[track]; ok && !inSearch[p.ID] {
			dropped = append(dropped, p)
		}
	}
	slices.SortFunc(dropped, func(a, b *state.Person) int { return strings.Compare(a.Lead.PageName, b.Lead.PageName) })
	jobs, again, name := 0, 0, ""
	for _, p := range dropped {
		if at := p.Tracked[track]; !at.After(rec.RanAt) {
			ts.Fatalf("%s dropped out of %s (run %s) but %s last read them %s: not watched", p.Lead.PageName, search,
				rec.RanAt.Format(time.RFC3339), track, at.Format(time.RFC3339))
		}
		job, moved := now[strings.ToLower(p.Lead.PageName)]
		if enrich != "" && p.Enrichment != nil && p.Enrichment.By == enrich {
			companyChanged := moved && p.Status == "" && before[strings.ToLower(p.Lead.PageName)].Company != job.Company
			switch times := enrichedTimes[p.Lead.PageName]; {
			case companyChanged && (times != 2 || p.Enrichment.Result.Email != job.Email):
				ts.Fatalf("%s dropped out of %s and changed company: enriched %d times by the sandbox's count, e-mail %q; want twice and %q",
					p.Lead.PageName, search, times, p.Enrichment.Result.Email, job.Email)
			case !companyChanged && times != 1:
				ts.Fatalf("%s dropped out of %s and kept their company: enriched %d times, want once", p.Lead.PageName, search, times)
			case companyChanged:
				again++
			}
		}
		if !moved {
			continue
		}
		if p.Status != "" {
			continue // gone or private since: no job to compare
		}
		if p.Lead.Title != job.Title || p.Lead.Company != job.Company {
			ts.Fatalf("%s is %s at %s now; state holds %s at %s", p.Lead.PageName, job.Title, job.Company, p.Lead.Title, p.Lead.Company)
		}
		seen := false
		for _, d := range p.History {
			seen = seen || d.By == track && d.JobField()
		}
		if !seen {
			ts.Fatalf("%s changed jobs; %s recorded no change of them", p.Lead.PageName, track)
		}
		jobs++
		if name == "" {
			name = p.Lead.FullName
		}
	}
	if len(dropped) == 0 || jobs == 0 {
		ts.Fatalf("%d people dropped out of %s, %d of them changed jobs: the script proves nothing", len(dropped), search, jobs)
	}
	ts.Setenv("DROPPED_NAME", name)
	if enrich != "" {
		fmt.Fprintf(ts.Stdout(), "dropped=%d job_changes=%d enriched_again=%d\n", len(dropped), jobs, again)
		return
	}
	fmt.Fprintf(ts.Stdout(), "dropped=%d job_changes=%d\n", len(dropped), jobs)
}
