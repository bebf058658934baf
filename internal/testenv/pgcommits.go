package testenv

import (
	"net/url"
	"strings"
)

// LazyCommits returns the connection string cs of the tests' shared
// PostgreSQL server with synchronous_commit off for its sessions: a
// commit returns before its WAL reaches the disk. Other sessions see a
// committed row at once, as before; only a crash of the server itself
// could lose it, and no test crashes the shared server (those that stop
// or kill a server run a cluster of their own, without this). The pg
// tests' small transactions each waited for an fsync: the conformance
// suite's cases took 40% less time without. A cs that already sets
// options is returned as it is.
func LazyCommits(cs string) string {
	if cs == "" || strings.Contains(cs, "options") {
		return cs
	}
	// pgx reads a + of the query as itself, not as a space.
	const opt = "-c synchronous_commit=off"
	if strings.HasPrefix(cs, "postgres://") || strings.HasPrefix(cs, "postgresql://") {
		sep := "?"
		if strings.Contains(cs, "?") {
			sep = "&"
		}
		return cs + sep + "options=" + strings.ReplaceAll(url.QueryEscape(opt), "+", "%20")
	}
	return cs + " options='" + opt + "'"
}
