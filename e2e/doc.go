// Package e2e holds the end-to-end tests of leadsync: the real CLI, run as
// a process of its own (the test binary re-executed as leadsync) against a
// sandbox served on loopback, with the testscript scripts of
// testdata/script, the kill, fault, disk, lock, secrets, team and pacing
// tests, the quickstart's workbook and the checks of the docs' links.
package e2e
