// Package pg keeps leadsync state in PostgreSQL, so that a team plans and
// applies against one shared state: one row per person, search, profile
// read, enrichment and failure, keyed by workspace; each completed call
// committed in its own transaction; pg_advisory_lock per workspace; the
// pace of an API key shared in a table, as are the budget's ledger
// (ledger.go) and the claims of the enrichments in flight across the
// workspaces (claims.go: each running apply alive while its session holds
// its advisory lock); a push's copy and a migration bound by their
// progress, not by one operation's ten minutes (stall.go, the server
// asked what a long step's session does: stallactivity.go). It registers
// itself as backend "pg" (Definition: its block's schema, checks and
// opener), and runs backendtest.Run in its tests. The columns of the
// person fields of the people and enrichments tables are those their
// rows in person.PersonFields name (PG); a field without one is kept in
// the row's extra column.
//
// It imports state (the model), backend (the interfaces), sqlstate (the
// queries it shares with the local backend), person, api, textfmt,
// version, safefile (ProcessAlive: whether a lock's holder still runs)
// and pgx. It must not import config, plan, run or cli, nor the local
// backend.
package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// DefaultSchema is the schema used when the configuration names none.
const DefaultSchema = "leadsync"

// DefaultWorkspace is the workspace used when none is chosen.
const DefaultWorkspace = state.DefaultWorkspace

var schemaRe = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CheckSchemaName says what is wrong with a schema name, nil when it is valid.
func CheckSchemaName(name string) error {
	if !schemaRe.MatchString(name) {
		return fmt.Errorf("schema_name %q is not valid: use lower-case letters, digits and _ (at most 63, not starting with a digit), e.g. \"leadsync\"", name)
	}
	return nil
}

// CheckWorkspaceName says what is wrong with a workspace name, nil when it
// is valid: the rules of every backend (backend.CheckWorkspaceName).
func CheckWorkspaceName(name string) error { return backend.CheckWorkspaceName(name) }

// CheckConnStr parses a connection string without connecting and says what
// is wrong with it (redacted), nil when it can be used.
func CheckConnStr(connStr string) error {
	if strings.TrimSpace(connStr) == "" {
		return errors.New("the connection string is empty")
	}
	if _, err := parseConfig(connStr); err != nil {
		return err
	}
	return nil
}

// parseConfig parses connStr, with TLS required (and the server's
// certificate verified) for a host that is not loopback when the user set
// no sslmode. Errors are redacted.
func parseConfig(connStr string) (*pgx.ConnConfig, error) {
	if isURL(connStr) && !urlUserInfoEncoded(connStr) {
		// pgx cuts the user information at the first @ (or an authority
		// at the first /) and would take the rest of the password for
		// the host or the database, look it up and print it.
		return nil, errUnencodedUserInfo
	}
	cs := withDefaultTLS(connStr)
	cfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL connection string cannot be parsed: %v", redactString(err.Error(), connStr))
	}
	return cfg, nil
}

// errUnencodedUserInfo refuses a postgres:// URL whose user name or
// password holds a character that ends it. It names no part of the string.
var errUnencodedUserInfo = errors.New("the PostgreSQL connection string is not a valid URL: characters @ / ? # in a user name or password must be percent-encoded (%40 %2F %3F %23), e.g. postgres://user:p%40ss@db.example.com/leads")

// urlUserInfoEncoded reports whether the user information of the
// postgres:// URL cs is read as written. A user name or password holding
// an unencoded @ or / is cut there by the reader (libpq's, which pgx
// follows: the user information ends at the first @ before any /), and the
// rest taken for the host, the port or the database: looked up in DNS and
// printed in errors; one holding ? or # is read apart by Go's URL reader
// (which finds the hosts that get TLS by default). So, in the text after
// "://", the first @ must come before any / ? #, with no other @ before the
// query; or else every @ must be in the query (after a / and a ?).
func urlUserInfoEncoded(cs string) bool {
	rest := cs[strings.Index(cs, "://")+3:]
	at := strings.Index(rest, "@")
	if at < 0 {
		return true
	}
	pre := rest[:at]
	switch stop := strings.IndexAny(pre, "/?#"); {
	case stop < 0:
		// A user information without those characters: no @ may follow
		// before the query.
		head, _, _ := strings.Cut(rest[at+1:], "?")
		return !strings.Contains(head, "@")
	case pre[stop] != '/':
		return false // ? or # in a user name or password
	default:
		// A path: the @ must be in its query (postgres://h/db?user=a@b),
		// not in the path (postgres://u:pa/ss@h/db).
		return strings.Contains(pre[stop:], "?")
	}
}

// withDefaultTLS adds sslmode=verify-full to a connection string that names
// no sslmode (nor PGSSLMODE) and whose hosts are not all loopback or a
// Unix socket.
func withDefaultTLS(cs string) string {
	if os.Getenv("PGSSLMODE") != "" || strings.Contains(strings.ToLower(cs), "sslmode") {
		return cs
	}
	hosts := hostsOf(cs)
	if len(hosts) == 0 {
		if h := os.Getenv("PGHOST"); h != "" {
			hosts = strings.Split(h, ",")
		}
	}
	remote := false
	for _, h := range hosts {
		if !isLocalHost(h) {
			remote = true
		}
	}
	if !remote {
		return cs
	}
	if isURL(cs) {
		if strings.Contains(cs, "?") {
			return cs + "&sslmode=verify-full"
		}
		return cs + "?sslmode=verify-full"
	}
	return cs + " sslmode=verify-full"
}

func isURL(cs string) bool {
	return strings.HasPrefix(cs, "postgres://") || strings.HasPrefix(cs, "postgresql://")
}

// hostsOf returns the hosts a connection string names.
func hostsOf(cs string) []string {
	if isURL(cs) {
		u, err := url.Parse(cs)
		if err != nil {
			return nil
		}
		var out []string
		for _, hp := range strings.Split(u.Host, ",") {
			h := hp
			if hh, _, err := net.SplitHostPort(hp); err == nil {
				h = hh
			}
			if h != "" {
				out = append(out, strings.Trim(h, "[]"))
			}
		}
		if hq := u.Query().Get("host"); hq != "" {
			out = append(out, strings.Split(hq, ",")...)
		}
		return out
	}
	for _, f := range strings.Fields(cs) {
		if v, ok := strings.CutPrefix(f, "host="); ok {
			return strings.Split(strings.Trim(v, "'"), ",")
		}
	}
	return nil
}

// isLocalHost reports whether h is loopback or a Unix socket folder.
func isLocalHost(h string) bool {
	if h == "" || strings.HasPrefix(h, "/") || strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

var (
	urlPassRe = regexp.MustCompile(`(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@`)
	kvPassRe  = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)
)

// redactString removes passwords from s: those of postgres:// URLs, every
// password=... and, to be sure, the literal password of connStr.
func redactString(s, connStr string) string {
	// A piece shorter than 3 characters is left: replacing it would
	// garble the text (every "a") and show where the password's letters
	// are.
	if pw := passwordOf(connStr); len(pw) >= 3 {
		secrets := []string{pw, url.QueryEscape(pw)}
		// A password cut apart by a reader (at an @ or a colon it did not
		// expect) is printed in pieces: remove each.
		for _, part := range strings.FieldsFunc(pw, func(r rune) bool { return strings.ContainsRune("@:/?#", r) }) {
			if len(part) >= 3 {
				secrets = append(secrets, part)
			}
		}
		s = textfmt.Redact(s, secrets...)
	}
	s = urlPassRe.ReplaceAllString(s, "${1}:"+textfmt.Redacted+"@")
	return kvPassRe.ReplaceAllString(s, "${1}"+textfmt.Redacted)
}

// passwordOf returns the password written in a connection string, if any.
func passwordOf(cs string) string {
	if isURL(cs) {
		if u, err := url.Parse(cs); err == nil {
			if pw, ok := u.User.Password(); ok {
				return pw
			}
			if pw := u.Query().Get("password"); pw != "" {
				return pw
			}
		}
		if m := urlPassRe.FindStringSubmatch(cs); m != nil {
			// Up to the last @ before the query: a password holding @ or
			// / is taken whole (too much rather than too little).
			head, _, _ := strings.Cut(cs, "?")
			if at := strings.LastIndex(head, "@"); at > len(m[1]) {
				return head[len(m[1])+1 : at]
			}
			return m[0][len(m[1])+1 : len(m[0])-1]
		}
	}
	if m := kvPassRe.FindStringSubmatch(cs); m != nil {
		return strings.Trim(m[2], "'")
	}
	return ""
}

// redactedError is an error whose text has had passwords removed; it keeps
// the original for errors.Is/As (its text is never printed by leadsync).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redact returns err with every password of connStr removed from its text.
func Redact(err error, connStr string) error {
	if err == nil {
		return nil
	}
	msg := redactString(err.Error(), connStr)
	return &redactedError{msg: msg, err: err}
}

// connect opens one connection.
func connect(ctx context.Context, connStr string) (*pgx.Conn, error) {
	cfg, err := parseConfig(connStr)
	if err != nil {
		return nil, err
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "leadsync"
	}
	cfg.Tracer = stallTracer{}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to PostgreSQL at %s: %w", describeHost(cfg), Redact(unwrapConnect(err), connStr))
	}
	return c, nil
}

func describeHost(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d (database %q, user %q)", cfg.Host, cfg.Port, cfg.Database, cfg.User)
}

// unwrapConnect keeps the cause of a connect error (its text repeats the
// host, which describeHost already says).
func unwrapConnect(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// wrap turns a database error into one that says what leadsync was doing,
// with every password removed. An error that says so already (wrapped
// deeper down) or a schema too new is returned as it is.
func (b *Backend) wrap(doing string, err error) error {
	if err == nil {
		return nil
	}
	var ns *NewerSchemaError
	var done *doingError
	if errors.As(err, &ns) || errors.As(err, &done) {
		return err
	}
	return &doingError{fmt.Errorf("PostgreSQL, %s, %s: %w", b.Describe(), doing, Redact(err, b.opts.ConnStr))}
}

// doingError is a database error that says what leadsync was doing (wrap).
type doingError struct{ err error }

func (e *doingError) Error() string { return e.err.Error() }
func (e *doingError) Unwrap() error { return e.err }

// opCtx is the context of one database operation.
func opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Minute)
}

// c returns the backend's connection, connecting when needed (and again
// after a broken connection). The caller holds b.mu.
func (b *Backend) c(ctx context.Context) (*pgx.Conn, error) {
	if b.conn != nil && !b.conn.IsClosed() {
		return b.conn, nil
	}
	c, err := b.dataConn(ctx)
	if err != nil {
		return nil, err
	}
	b.conn = c
	return c, nil
}

// writable returns the connection with the schema created or migrated.
// The caller holds b.mu.
func (b *Backend) writable(ctx context.Context) (*pgx.Conn, error) {
	c, err := b.c(ctx)
	if err != nil {
		return nil, err
	}
	if !b.migrated {
		if err := b.ensureSchema(ctx, c); err != nil {
			return nil, err
		}
		b.migrated = true
	}
	return c, nil
}

// The preamble of the backend's operations, written once: b.mu held, the
// context of one operation, the connection (made again after a broken
// one) with the schema's version checked, and a transaction.

// locked runs f under b.mu in the context of one operation.
func (b *Backend) locked(f func(ctx context.Context) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	return f(ctx)
}

// writing runs f as locked does, on the backend's connection with the
// schema created or migrated.
func (b *Backend) writing(f func(ctx context.Context, c *pgx.Conn) error) error {
	return b.locked(func(ctx context.Context) error {
		c, err := b.writable(ctx)
		if err != nil {
			return err
		}
		return f(ctx, c)
	})
}

// reading runs f as locked does, on the backend's connection once the
// schema's version is checked: a newer schema is refused, an older one
// migrated. Without a schema (nothing was ever stored) f is not run, and
// found is false.
func (b *Backend) reading(f func(ctx context.Context, c *pgx.Conn) error) (found bool, err error) {
	err = b.locked(func(ctx context.Context) error {
		c, err := b.c(ctx)
		if err != nil {
			return err
		}
		v, err := b.checkedVersion(ctx, c)
		if err != nil || v == 0 {
			return err
		}
		if v < SchemaVersion {
			if c, err = b.writable(ctx); err != nil {
				return err
			}
		}
		found = true
		return f(ctx, c)
	})
	return found, err
}

// inTx runs f in one transaction on c, committed when f returns nil and
// rolled back otherwise; opts make it a read (pgx.ReadOnly). A failure to
// start or to commit it says so; what f returns is returned as it is.
func (b *Backend) inTx(ctx context.Context, c *pgx.Conn, opts pgx.TxOptions, f func(tx pgx.Tx) error) error {
	starting := "starting a write"
	if opts.AccessMode == pgx.ReadOnly {
		starting = "starting a read"
	}
	tx, err := c.BeginTx(ctx, opts)
	if err != nil {
		return b.wrap(starting, err)
	}
	defer tx.Rollback(ctx)
	if err := f(tx); err != nil {
		return err
	}
	return b.wrap("committing", tx.Commit(ctx))
}

// ownConn opens a connection of its own (a holder of claims'), once the
// schema is created or migrated.
func (b *Backend) ownConn(ctx context.Context) (*pgx.Conn, error) {
	if err := b.ensureWritable(ctx); err != nil {
		return nil, err
	}
	return connect(ctx, b.opts.ConnStr)
}

// lockConn opens the connection a lock is taken on, once the schema is
// created or migrated: a new one, or one the test hook keeps (dataConn).
// A lock let go cleanly gives it back (closeDataConn).
func (b *Backend) lockConn(ctx context.Context) (*pgx.Conn, error) {
	if err := b.ensureWritable(ctx); err != nil {
		return nil, err
	}
	return b.dataConn(ctx)
}

// ensureWritable creates or migrates the schema when needed (writable).
func (b *Backend) ensureWritable(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.writable(ctx)
	return err
}
