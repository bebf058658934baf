// Package views draws what the commands show, apart from the logic that
// decides it (as terraform's internal/command/views and restic's
// internal/ui): the plan in its human form (aligned lines, ANSI colour
// when asked) and its JSON form, and the apply's progress printers: a
// live status line on a terminal, one line per call on a pipe, JSON lines
// with a message_type for --json.
//
// One view interface per command with a human and a JSON implementation:
// Plan (NewPlan) for plan and show FILE, Apply (NewApply, the
// run.ApplyView that run.Apply drives). Counting is apart from drawing:
// Counter counts calls, credits, rate and time left from an injected
// clock; the printers only format what it counts.
//
// It imports plan, engine, export, exportformat, config and run (for the
// interface it implements); never cli or cobra. It writes only to the writers it is
// given. The plan package knows nothing of terminals: every escape code
// is here.
package views
