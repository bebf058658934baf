package views

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// jsonProgress streams one JSON object per line, each with a message_type.
type jsonProgress struct {
	w   io.Writer
	now func() time.Time
	// hold, when set, receives the run's summary instead of the stream:
	// the apply view emits it once the files are written (see applyJSON).
	hold func(*engine.Summary)
	// warnings are the configuration's, carried by apply_start with the
	// plan's own.
	warnings []plan.Diagnostic
	// errOut is standard error: an answer neither recorded nor kept is
	// printed there too (answer.go).
	errOut io.Writer
}

var _ engine.Progress = (*jsonProgress)(nil)

func (p *jsonProgress) emit(v map[string]any) {
	v["format_version"] = "1"
	v["timestamp"] = p.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.w.Write(append(b, '\n'))
}

func callJSON(c engine.Call) map[string]any {
	m := map[string]any{"seq": c.Seq, "kind": c.Kind.String(), "address": c.Address}
	if c.Person != "" {
		m["person"] = c.Person
	}
	if c.Page != "" {
		m["page_name"] = c.Page
	}
	if c.SubSearch != "" {
		m["sub_search"] = c.SubSearch
	}
	return m
}

func (p *jsonProgress) Start(pl *plan.Plan, callsMax, creditsMax int) {
	p.emit(map[string]any{"message_type": "apply_start", "calls_max": callsMax, "credits_max": creditsMax,
		"diagnostics": applyWarnings(p.warnings, pl)})
}

// applyWarnings are the warnings an apply goes ahead with: the
// configuration's and the plan's (a credit balance that may not suffice),
// each once; never null.
func applyWarnings(cfg []plan.Diagnostic, pl *plan.Plan) []plan.Diagnostic {
	out := []plan.Diagnostic{}
	seen := map[string]bool{}
	add := func(ds []plan.Diagnostic) {
		for _, d := range ds {
			if k := d.Summary + "\x00" + d.Detail; d.Severity == "warning" && !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	add(cfg)
	if pl != nil {
		add(pl.Diagnostics)
	}
	return out
}

func (p *jsonProgress) CallStart(c engine.Call) {
	p.emit(map[string]any{"message_type": "call_start", "call": callJSON(c)})
}

func (p *jsonProgress) CallDone(c engine.Call, r engine.CallResult) {
	m := map[string]any{"message_type": "call_done", "call": callJSON(c),
		"duration_seconds": r.Duration.Seconds(), "credits": r.Credits}
	if c.Kind == kind.Search {
		m["results"] = r.Results
		m["capped"] = r.Capped
		if r.SplitNext != "" {
			m["split_next"] = r.SplitNext
		}
	}
	if c.Kind == kind.Enrich {
		m["validation_status"] = r.Status
	}
	if c.Kind == kind.Track {
		m["profile"] = map[bool]string{true: "left", false: map[bool]string{true: "private", false: "public"}[r.Private]}[r.Left]
	}
	if len(r.Jobs) > 0 {
		m["job_changes"] = jobChangesJSON(r.Jobs)
	}
	p.emit(m)
}

// jobChangesJSON is the JSON form of job changes; never null.
func jobChangesJSON(jobs []engine.JobChange) []map[string]any {
	out := make([]map[string]any, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, map[string]any{"person": j.PersonID, "name": j.Name, "seen_by": j.By,
			"before": map[string]string{"title": j.Before.Title, "company": j.Before.Company},
			"after":  map[string]string{"title": j.After.Title, "company": j.After.Company}})
	}
	return out
}

// peopleSeenJSON is the JSON form of people found gone or private.
func peopleSeenJSON(ps []engine.PersonSeen) []map[string]any {
	out := make([]map[string]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, map[string]any{"person": p.PersonID, "name": p.Name, "seen_by": p.By})
	}
	return out
}

func (p *jsonProgress) CallError(c engine.Call, err error) {
	m := map[string]any{"message_type": "call_error", "call": callJSON(c), "error": err.Error()}
	if ae, ok := err.(*api.Error); ok {
		m["status"] = ae.Status
		m["error_kind"] = ae.Kind.String()
		m["hint"] = ae.Hint()
	}
	p.emit(m)
}

func (p *jsonProgress) Stopping(reason string) {
	p.emit(map[string]any{"message_type": "stopping", "reason": reason})
}

func (p *jsonProgress) Summary(s *engine.Summary) {
	if p.hold != nil {
		p.hold(s)
		return
	}
	p.emit(summaryEvent(s))
}

// summaryEvent is the summary line of a run.
func summaryEvent(s *engine.Summary) map[string]any {
	searches := make([]map[string]any, 0, len(s.Searches))
	for _, o := range s.Searches {
		m := map[string]any{"address": o.Address, "results": o.Results, "kept": o.Kept,
			"added": o.Added, "removed": o.Removed, "capped": o.Capped, "first_run": o.First, "suppressed": o.Suppressed, "changed": o.Changed}
		if o.Split != nil {
			m["split"] = map[string]any{"sub_searches": o.Split.SubSearches, "people": o.Split.People,
				"complete": o.Split.Complete, "saturated_leaves": o.Split.Saturated, "verdict": o.Split.Verdict()}
		}
		searches = append(searches, m)
	}
	unfinished := make([]map[string]any, 0, len(s.SplitsUnfinished))
	for _, u := range s.SplitsUnfinished {
		unfinished = append(unfinished, map[string]any{"address": u.Address, "ran": u.Ran, "done": u.Done, "pending": u.Pending})
	}
	failures := make([]map[string]any, 0, len(s.Failures))
	for _, f := range s.Failures {
		m := map[string]any{"address": f.Address, "kind": f.Kind.String(), "error": f.Err.Error()}
		if f.Person != "" {
			m["person"] = f.Person
		}
		if f.NoCall {
			m["no_call"] = true
		}
		if f.Unrecorded {
			m["unrecorded"] = true
		}
		failures = append(failures, m)
	}
	kept := make([]map[string]any, 0, len(s.Kept))
	for _, c := range s.Kept {
		kept = append(kept, callJSON(c))
	}
	abandoned := make([]map[string]any, 0, len(s.Abandoned))
	for _, c := range s.Abandoned {
		abandoned = append(abandoned, callJSON(c))
	}
	imported := make([]map[string]any, 0, len(s.Imported))
	for _, im := range s.Imported {
		imported = append(imported, map[string]any{"address": im.Address, "rows": im.Rows, "people": im.People,
			"enriched": im.Enriched, "saved": im.Saved, "excluded": im.Excluded, "suppressed": im.Suppressed})
	}
	forgotten := append([]string{}, s.Forgotten...)
	updated := append([]string{}, s.Updated...)
	moved := make([]map[string]string, 0, len(s.Moved))
	for _, m := range s.Moved {
		moved = append(moved, map[string]string{"from": m.From, "to": m.To})
	}
	byStatus := s.ByStatus
	if byStatus == nil {
		byStatus = map[string]int{}
	}
	return map[string]any{"message_type": "summary", "calls": s.Calls, "calls_max": s.CallsPlannedMax,
		"credits": s.Credits, "credits_unknown": s.CreditsUnknown, "credits_max": s.CreditsPlannedMax, "succeeded": s.Succeeded,
		"failed": s.CallsFailed(), "enriched": s.Enriched, "by_status": byStatus, "abandoned": abandoned, "stopped_in_flight": s.StoppedInFlight,
		"searches": searches, "failures": failures, "forgotten": forgotten, "updated": updated, "moved": moved, "expired": s.Expired, "imported": imported, "reused": reusedJSON(s.Reused), "claimed_elsewhere": claimedJSON(s.ClaimedElsewhere), "budget": budgetJSON(s), "not_spent": notSpentJSON(s.NotSpent), "splits_unfinished": unfinished,
		"tracked": s.Tracked, "job_changes": jobChangesJSON(s.Drift.Jobs), "left_network": peopleSeenJSON(s.Drift.Left),
		"turned_private": peopleSeenJSON(s.Drift.Private), "changes_by_field": changesByField(s.Drift.Fields),
		"stopped": s.Stopped, "duration_seconds": s.Duration.Seconds(), "kept": kept, "kept_in": s.KeptIn}
}

// truncCells cuts s to at most n character cells, ending in "..." when cut,
// never inside a character.
func truncCells(s string, n int) string {
	if textfmt.Width(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		rw := textfmt.Width(string(r))
		if w+rw > n-3 {
			return s[:i] + "..."
		}
		w += rw
	}
	return s
}

// reusedJSON is the summary's count of enrichments copied from other
// workspaces, by workspace ({} when none).
func reusedJSON(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// claimedLines say what became of the people another workspace's apply,
// running at the same moment, was enriching: "Enriched by workspace
// dach's apply running now: 3 people copied (no call, no credit), 1 person
// left for the next apply."
func claimedLines(m map[string]engine.ClaimedCount) []string {
	var out []string
	for _, w := range sortedKeys(m) {
		c := m[w]
		var parts []string
		if c.Copied > 0 {
			parts = append(parts, Plural(c.Copied, "person")+" copied (no call, no credit)")
		}
		if c.Left > 0 {
			parts = append(parts, Plural(c.Left, "person")+" left for the next apply, which copies what it records")
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("Enriched by workspace %s's apply running now: %s.", w, strings.Join(parts, ", ")))
		}
	}
	return out
}

// claimedJSON is the summary's claimed_elsewhere: by workspace, the people
// copied and left ([] when none).
func claimedJSON(m map[string]engine.ClaimedCount) []map[string]any {
	out := []map[string]any{}
	for _, w := range sortedKeys(m) {
		out = append(out, map[string]any{"workspace": w, "copied": m[w].Copied, "left": m[w].Left})
	}
	return out
}

// sortedKeys are the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// budgetJSON says whether the budget stopped the run or was passed (null
// without either).
func budgetJSON(s *engine.Summary) any {
	if !s.BudgetStopped && s.BudgetPassed == "" {
		return nil
	}
	return map[string]any{"stopped": s.BudgetStopped, "passed": s.BudgetPassed}
}

// changesByField counts the changes of a run by field, every field
// present.
func changesByField(fields map[string]int) map[string]int {
	out := make(map[string]int, len(state.DriftFields))
	for _, f := range state.DriftFields {
		out[f] = fields[f]
	}
	return out
}

var _ engine.WaitProgress = (*jsonProgress)(nil)

// Waiting emits a "waiting" message.
func (p *jsonProgress) Waiting(c engine.Call, d time.Duration, reason string) {
	p.emit(map[string]any{"message_type": "waiting", "call": callJSON(c), "wait_seconds": d.Seconds(), "reason": reason})
}
