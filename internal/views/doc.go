// Package views draws what the commands show, apart from the logic that
// decides it (as terraform's internal/command/views and restic's
// internal/ui): the plan in its human form (aligned lines, ANSI colour
// when asked) and its JSON form, the apply's progress printers (a live
// status line on a terminal, one line per call on a pipe: progress.go,
// with the summary at the end in progress_summary.go; JSON lines with
// a message_type for --json: progress_json.go), and the state as state list, state show and
// show print it.
//
// One view interface per command with a human and a JSON implementation:
// Plan (NewPlan) for plan and show FILE, Apply (NewApply, the
// run.ApplyView that run.Apply drives), StateList, StateShow and
// ShowState (the summary of show, gathered by SummarizeState), Fields,
// Usage, Export and Forget (the lines of leadsync forget); Console (the run.ConsoleView of leadsync console,
// whose FormatValue writes a value in the language's syntax, as terraform
// console does). Every JSON
// form carries a format_version, and goes through writeJSONDoc, which
// writes a nil list or map as [] or {}, never null. Counting is apart
// from drawing: Counter counts calls, credits, rate and time left from an
// injected clock; the printers only format what it counts, and the human
// forms of the state say ages by an injected clock (When, Age).
//
// It imports plan, engine, export, exportformat, config, catalog, api (errors,
// usage, fields), person (the table of person fields, which state show
// names), kind (the table of block kinds; state show's form of each kind
// that holds records is shownRecords, state_records.go), address, state,
// state/backend (for the types of a lock and of workspaces) and run (for
// the interface it implements); never cli or cobra. It writes only to the
// writers it is given. The plan package knows nothing of terminals: every
// escape code is here.
package views
