package config

import (
	"strings"
	"testing"
)

// TestCostlyExpressionsAreRefused: an expression that would take minutes
// or gigabytes (issue 26.5) gives one error, at its line, and nothing
// else; each case ends after at most maxWork steps, with nothing charged
// once the work is spent (no function reached, no expression evaluated:
// without the guard of the functions' arguments that cost minutes).
// The bound and the inputs are MaxWork's and theirs divided by
// workScale: each case costs what it did in the same proportion, its
// work a twentieth (21 s of CPU at MaxWork on a loaded machine).
func TestCostlyExpressionsAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, expr string }{
		{"three fors over range", `length([for i in range(1024) : length([for j in range(1024) : length([for k in range(1024) : k])])])`},
		{"two fors over range", `length([for i in range(1024) : length([for j in local.big : j])])`},
		{"for over a local", `length([for i in local.big : length([for j in local.big : j])])`},
		{"splat in a for", `length([for i in local.big : length(local.objs[*].a)])`},
		{"comparison in a for", `length([for i in local.big : local.big == local.big])`},
		{"contains in a for", `length([for i in local.big : contains(local.big, i)])`},
		{"setproduct in a for", `length([for i in range(50) : length(setproduct(range(300), range(300)))])`},
		{"format in a for", `length([for i in local.big : format("%09999d", i)])`},
		{"indent", `length(indent(999999999, "a\nb"))`},
		{"replace", `length(replace(join("", [for i in local.big : "a"]), "a", join("", [for i in local.big : "b"])))`},
		{"template doubling", `length("${local.s}${local.s}${local.s}${local.s}${local.s}${local.s}${local.s}${local.s}")`},
		{"hidden by can", `can([for i in range(1024) : [for j in range(1024) : [for k in range(1024) : k]]])`},
		{"hidden by try", `try([for i in range(1024) : [for j in range(1024) : [for k in range(1024) : k]]], 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := base + `
locals {
  big  = flatten([for i in range(3) : range(1000)])
  objs = [for i in local.big : { a = i }]
  s    = join("", [for i in local.big : "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01234567890123456789"])
  x    = ` + tc.expr + `
}
search "s" {
  keywords = "x"
}`
			var used, late int64
			lowerWork(t, func(u, l int64) { used, late = u, l })
			_, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": src})})
			t.Logf("used %d, charged after the bound %d", used, late)
			if used <= maxWork || late > 0 {
				t.Errorf("used %d steps of %d, %d charged after the bound: want more than the bound, none after it", used, maxWork, late)
			}
			line := strings.Count(src[:strings.Index(src, "  x    = ")], "\n") + 1
			errs := diags.Errs()
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d: %v", len(errs), diags)
			}
			d := diags[0]
			if d.Summary != "Expression too costly to evaluate" && !strings.Contains(d.Detail, "more than") {
				t.Errorf("error = %s: %s", d.Summary, d.Detail)
			}
			if d.Subject == nil || d.Subject.Start.Line != line {
				t.Errorf("error at %v, want line %d: %s", d.Subject, line, d.Detail)
			}
		})
	}
}

// workScale divides MaxWork for TestCostlyExpressionsAreRefused, whose
// inputs are divided by it too.
const workScale = 20

// lowerWork sets the bound to MaxWork/workScale and tells done of each
// configuration's work, until t ends. The tests that set it do not run
// in parallel.
func lowerWork(t *testing.T, done func(used, late int64)) {
	maxWork, workDone = MaxWork/workScale, done
	t.Cleanup(func() { maxWork, workDone = MaxWork, nil })
}
