// Package e2e holds the end-to-end tests of leadsync: the real CLI, run as
// a process of its own (this package's test binary re-executed as
// leadsync, see TestMain) against a sandbox served on loopback.
//
// harness_test.go holds every helper the tests share: running leadsync in
// a scrubbed environment, the sandbox, a project folder and its processes,
// reading the state a run left (local file or PostgreSQL), a PostgreSQL
// schema per test. Each other file proves one thing: scripts_test.go runs
// the testscript scripts of testdata/script (also on PostgreSQL);
// kill_test.go, split_test.go, faults_test.go, disk_test.go, locks_test.go,
// secrets_test.go, team_test.go, pace_test.go and claims_test.go the
// guarantees of docs/reliability.md; interrupt_test.go a real SIGINT
// while the spreadsheets are written after a closed standard output;
// quickstart_test.go the quickstart's
// workbook; docs_test.go the docs' links and commands; layout_test.go that
// every production function of the repository fits on a screen.
//
// The package has no code outside its tests, and nothing imports it.
package e2e
