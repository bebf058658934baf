package pg

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/version"
)

// SchemaVersion is the version of the tables this build reads and writes.
// A schema of a newer version is refused; an older one is migrated, in one
// transaction, by the first command that opens it, even to read.
const SchemaVersion = 17

// migrations[i] takes a schema from version i to i+1. {s} is the schema.
var migrations = []string{
	// 0 -> 1: the tables.
	`
CREATE TABLE {s}.workspaces (
	name             text PRIMARY KEY,
	lineage          text NOT NULL,
	serial           bigint NOT NULL DEFAULT 0,
	format_version   integer NOT NULL,
	leadsync_version text NOT NULL DEFAULT '',
	created_at       timestamptz NOT NULL DEFAULT now(),
	usage            jsonb NOT NULL DEFAULT '{}'
);
CREATE TABLE {s}.people (
	workspace       text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	id              text NOT NULL,
	network_id      text NOT NULL DEFAULT '',
	page_name       text NOT NULL DEFAULT '',
	first_name      text NOT NULL DEFAULT '',
	last_name       text NOT NULL DEFAULT '',
	full_name       text NOT NULL DEFAULT '',
	title           text NOT NULL DEFAULT '',
	location        text NOT NULL DEFAULT '',
	previous_title  text NOT NULL DEFAULT '',
	company         text NOT NULL DEFAULT '',
	first_seen      timestamptz,
	last_seen       timestamptz,
	found_by        text[],
	profile         jsonb,
	profile_read_at timestamptz,
	raw             text,
	PRIMARY KEY (workspace, id)
);
CREATE TABLE {s}.enrichments (
	workspace         text NOT NULL,
	person_id         text NOT NULL,
	enriched_at       timestamptz NOT NULL,
	by_address        text NOT NULL,
	-- the enrich call's result, field by field
	result_id         text NOT NULL DEFAULT '',
	page_name         text NOT NULL DEFAULT '',
	first_name        text NOT NULL DEFAULT '',
	last_name         text NOT NULL DEFAULT '',
	full_name         text NOT NULL DEFAULT '',
	title             text NOT NULL DEFAULT '',
	location          text NOT NULL DEFAULT '',
	previous_title    text NOT NULL DEFAULT '',
	company           text NOT NULL DEFAULT '',
	network_id        text NOT NULL DEFAULT '',
	profile_img_url   text NOT NULL DEFAULT '',
	email             text NOT NULL DEFAULT '',
	validation_status text NOT NULL DEFAULT '',
	company_domain    text NOT NULL DEFAULT '',
	credit_balance    integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, person_id),
	FOREIGN KEY (workspace, person_id) REFERENCES {s}.people (workspace, id) ON DELETE CASCADE
);
CREATE TABLE {s}.searches (
	workspace    text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	address      text NOT NULL,
	generation   integer NOT NULL,
	request      text NOT NULL,
	request_hash text NOT NULL,
	ran_at       timestamptz,
	result_count integer NOT NULL,
	max_results  integer NOT NULL,
	capped       boolean NOT NULL,
	lead_ids     text[],
	added        integer NOT NULL,
	removed      integer NOT NULL,
	runs         integer NOT NULL,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE {s}.profile_reads (
	workspace    text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	address      text NOT NULL,
	generation   integer NOT NULL,
	request      text NOT NULL,
	request_hash text NOT NULL,
	read_at      timestamptz,
	person_id    text NOT NULL,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE {s}.failures (
	workspace text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	address   text NOT NULL,
	at        timestamptz,
	message   text NOT NULL,
	status    integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE {s}.events (
	n          bigserial PRIMARY KEY,
	workspace  text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	journal_id text NOT NULL,
	seq        bigint NOT NULL,
	at         timestamptz NOT NULL,
	kind       text NOT NULL,
	address    text NOT NULL,
	event      jsonb NOT NULL,
	UNIQUE (workspace, journal_id, seq)
);
CREATE TABLE {s}.locks (
	workspace        text PRIMARY KEY,
	id               text NOT NULL,
	operation        text NOT NULL,
	who              text NOT NULL,
	host             text NOT NULL,
	pid              integer NOT NULL,
	since            timestamptz NOT NULL,
	leadsync_version text NOT NULL,
	backend_pid      integer NOT NULL
);
`,
	// 1 -> 2: a place for fields this schema does not model in columns
	// (written by newer builds or added to the state later), so that they
	// are kept rather than lost; and people found by page name.
	`
ALTER TABLE {s}.workspaces ADD COLUMN extra jsonb;
ALTER TABLE {s}.people ADD COLUMN extra jsonb;
ALTER TABLE {s}.searches ADD COLUMN extra jsonb;
ALTER TABLE {s}.profile_reads ADD COLUMN extra jsonb;
ALTER TABLE {s}.failures ADD COLUMN extra jsonb;
ALTER TABLE {s}.enrichments ADD COLUMN extra jsonb;
CREATE INDEX people_page_name ON {s}.people (workspace, page_name);
`,
	// 2 -> 3: the pace of each API key, shared by every process on the
	// database (teammates on one key, in any workspace): the start of the
	// key's last call, keyed by a hash of the key (never the key).
	`
CREATE TABLE {s}.pace (
	key_hash   text PRIMARY KEY,
	last_start timestamptz NOT NULL
);
`,
	// 3 -> 4: a person's history (state.Drift), one row per change, only
	// ever appended to (a person re-keyed or merged is written again), and
	// what the last profile read found of the person.
	`
CREATE TABLE {s}.person_history (
	workspace    text NOT NULL,
	person_id    text NOT NULL,
	n            integer NOT NULL,
	field        text NOT NULL,
	value_before text NOT NULL,
	value_after  text NOT NULL,
	at           timestamptz NOT NULL,
	by_address   text NOT NULL,
	call         text NOT NULL,
	PRIMARY KEY (workspace, person_id, n),
	FOREIGN KEY (workspace, person_id) REFERENCES {s}.people (workspace, id) ON DELETE CASCADE
);
ALTER TABLE {s}.people ADD COLUMN status text NOT NULL DEFAULT '';
ALTER TABLE {s}.people ADD COLUMN status_since timestamptz;
ALTER TABLE {s}.people ADD COLUMN checked_at timestamptz;
ALTER TABLE {s}.searches ADD COLUMN changed integer NOT NULL DEFAULT 0;
`,
	// 4 -> 5: what each API account spent per billing month (leadsync {
	// budget }), keyed by a hash of the key (api.AccountID), shared by
	// every workspace; and people found by network ID across workspaces
	// (an enrichment reused from another workspace).
	`
CREATE TABLE {s}.ledger (
	account  text NOT NULL,
	month    text NOT NULL,
	credits  bigint NOT NULL DEFAULT 0,
	requests bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (account, month)
);
CREATE INDEX people_network_id ON {s}.people (network_id);
`,
	// 5 -> 6: the erasure record of every workspace (leadsync forget), as
	// hashed identifiers (state.Suppression): a workspace made later, or a
	// state pushed later, honours it. entry is state.EntryKey of keys.
	`
CREATE TABLE {s}.erasures (
	entry text PRIMARY KEY,
	keys  text[] NOT NULL,
	at    timestamptz NOT NULL
);
`,
	// 6 -> 7: the people whose enrichment an apply is paying for right now
	// (backend.Claims), shared by every workspace: each key a hash of the
	// API account and one key of the person (never the person's own), and
	// the applies that hold claims, each alive while its session holds
	// the advisory lock (claimHolderClass, lock_key); seq orders what
	// happened to the claims.
	`
CREATE SEQUENCE {s}.claim_seq;
CREATE TABLE {s}.claim_holders (
	holder    text PRIMARY KEY,
	workspace text NOT NULL,
	lock_key  integer NOT NULL,
	opened    bigint NOT NULL
);
CREATE TABLE {s}.claims (
	key       text PRIMARY KEY,
	holder    text NOT NULL,
	workspace text NOT NULL,
	state     text NOT NULL,
	seq       bigint NOT NULL
);
`,
	// 7 -> 8: what each run holds in the ledger for calls it has not sent
	// yet (backend.Ledger's Hold), counted in the ledger's month too and
	// taken back from it when the run is settled (a dead run's by the next
	// command under its workspace's lock).
	`
CREATE TABLE {s}.ledger_runs (
	run       text PRIMARY KEY,
	account   text NOT NULL,
	workspace text NOT NULL,
	month     text NOT NULL,
	credits   bigint NOT NULL DEFAULT 0,
	requests  bigint NOT NULL DEFAULT 0
);
`,
	// 8 -> 9: when the ledger first recorded a call of each account
	// (backend.Ledger's Since): every run records its calls from this
	// version on, with a budget or without, and a plan says from when it
	// counts.
	`
CREATE TABLE {s}.ledger_accounts (
	account text PRIMARY KEY,
	since   timestamptz NOT NULL DEFAULT now()
);
`,
	// 9 -> 10: the service a workspace's state was filled from
	// (state.State.Service): "sandbox", or a host and an account hash;
	// and the configuration that fills it (state.State.Configuration).
	`
ALTER TABLE {s}.workspaces ADD COLUMN service text NOT NULL DEFAULT '';
ALTER TABLE {s}.workspaces ADD COLUMN configuration text NOT NULL DEFAULT '';
`,
	// 10 -> 11: the indexes a command that asks for what it needs reads
	// from (state.Base; sqlstate's baseIndexes are SQLite's): the people in
	// the order of their IDs' bytes, by status, the unlisted, those read
	// by a track, and the enrichments by block, time and status.
	`
CREATE INDEX people_id_bytes ON {s}.people (workspace, id COLLATE "C");
CREATE INDEX people_status ON {s}.people (workspace, status);
CREATE INDEX people_checked_at ON {s}.people (workspace, checked_at) WHERE checked_at IS NOT NULL;
CREATE INDEX people_unlisted ON {s}.people (workspace) WHERE (found_by IS NULL OR cardinality(found_by) = 0);
CREATE INDEX people_tracked ON {s}.people (workspace) WHERE jsonb_exists(extra, 'tracked');
CREATE INDEX enrichments_by ON {s}.enrichments (workspace, by_address, enriched_at);
CREATE INDEX enrichments_at ON {s}.enrichments (workspace, enriched_at);
CREATE INDEX enrichments_status ON {s}.enrichments (workspace, validation_status);
`,
	// 11 -> 12: the indexes a partial state (state rm, state mv) reads
	// from (sqlstate's partialIndexes are SQLite's): the enrichments by
	// the block that copied them, the history by the call that saw it.
	`
CREATE INDEX enrichments_copied ON {s}.enrichments (workspace, (extra->>'copied_by')) WHERE (extra->>'copied_by') IS NOT NULL;
CREATE INDEX person_history_by ON {s}.person_history (workspace, by_address, person_id);
`,
	// 12 -> 13: the people's page keys (state.PageKey of page_name) and
	// their index, which a partial state finds people by page name from
	// (sqlstate's pageKeys are SQLite's); nothing asks for page names as
	// written, so their index goes. Every writer sets page_key; a row
	// written before keeps '' when lower() in the "C" collation gives
	// its key (ASCII), so that no row is rewritten: the index is on
	// sqlstate.PGPageKey. pageKeysOutsideASCII keys the others in Go.
	// ANALYZE gives the planner the index's statistics: without them it
	// expects thousands of rows for a few keys (and compiles the query,
	// 25-100 ms at 3,000,000 people).
	`
ALTER TABLE {s}.people ADD COLUMN page_key text NOT NULL DEFAULT '';
DROP INDEX IF EXISTS {s}.people_page_name;
CREATE INDEX people_page_key ON {s}.people (workspace, (` + sqlstate.PGPageKey + `));
ANALYZE {s}.people;
`,
	// 13 -> 14: the people by the time a search last saw them, which
	// retention asks (sqlstate.SelectSeenBefore; sqlstate's seenIndex is
	// SQLite's). ANALYZE gives the planner its statistics: without them it
	// took the index of page keys and read every person of the workspace.
	`
CREATE INDEX people_last_seen ON {s}.people (workspace, last_seen);
ANALYZE {s}.people;
`,
	// 14 -> 15: the numbered addresses of found_by (sqlstate/addrs.go,
	// SQLite's schema 6): numberAddresses.
	numberAddresses,
	// 15 -> 16: the count of the changes of a workspace's addresses
	// (sqlstate's addressChanges are SQLite's): countAddressChanges.
	countAddressChanges,
	// 16 -> 17: the enrichments' blocks, the blocks that copied them and
	// the histories' calls numbered (sqlstate's numberBlocks is SQLite's):
	// numberBlocks.
	numberBlocks,
}

// numberBlocks makes the enrichments' blocks (by_n), the blocks that
// copied them (copied_n, out of extra) and the histories' calls (by_n)
// the numbers of their addresses, as found_by holds them, so that a move
// renames one row of addresses. Each workspace's commonest block of
// enrichments not numbered yet is numbered 0, the new column's default:
// PostgreSQL adds such a column without writing a row, and only the
// other rows are updated. Dropping the text columns writes no row
// either.
const numberBlocks = `
INSERT INTO {s}.addresses (workspace, n, address) SELECT DISTINCT ON (workspace) workspace, 0, by_address FROM
	(SELECT workspace, by_address, count(*) AS c FROM {s}.enrichments e
		WHERE NOT EXISTS (SELECT 1 FROM {s}.addresses a WHERE a.workspace = e.workspace AND a.address = e.by_address) GROUP BY workspace, by_address) AS x
	ORDER BY workspace, c DESC, by_address COLLATE "C";
INSERT INTO {s}.addresses (workspace, n, address) SELECT workspace, (SELECT coalesce(max(n), 0) FROM {s}.addresses a WHERE a.workspace = x.workspace)
	+ row_number() OVER (PARTITION BY workspace ORDER BY address COLLATE "C"), address
	FROM (SELECT DISTINCT workspace, by_address AS address FROM {s}.enrichments
		UNION SELECT DISTINCT workspace, extra->>'copied_by' FROM {s}.enrichments WHERE (extra->>'copied_by') IS NOT NULL
		UNION SELECT DISTINCT workspace, by_address FROM {s}.person_history) AS x
	WHERE NOT EXISTS (SELECT 1 FROM {s}.addresses a WHERE a.workspace = x.workspace AND a.address = x.address);
ALTER TABLE {s}.enrichments ADD COLUMN by_n integer NOT NULL DEFAULT 0, ADD COLUMN copied_n integer;
UPDATE {s}.enrichments e SET copied_n = a.n, extra = e.extra - 'copied_by' FROM {s}.addresses a
	WHERE (e.extra->>'copied_by') IS NOT NULL AND a.workspace = e.workspace AND a.address = (e.extra->>'copied_by');
UPDATE {s}.enrichments e SET by_n = a.n FROM {s}.addresses a WHERE a.workspace = e.workspace AND a.address = e.by_address AND a.n <> 0;
ALTER TABLE {s}.person_history ADD COLUMN by_n integer NOT NULL DEFAULT 0;
UPDATE {s}.person_history h SET by_n = a.n FROM {s}.addresses a WHERE a.workspace = h.workspace AND a.address = h.by_address AND a.n <> 0;
DROP INDEX {s}.enrichments_by;
DROP INDEX {s}.enrichments_copied;
DROP INDEX {s}.person_history_by;
ALTER TABLE {s}.enrichments DROP COLUMN by_address;
ALTER TABLE {s}.person_history DROP COLUMN by_address;
CREATE INDEX enrichments_by ON {s}.enrichments (workspace, by_n, enriched_at);
CREATE INDEX enrichments_copied ON {s}.enrichments (workspace, copied_n) WHERE copied_n IS NOT NULL;
CREATE INDEX person_history_by ON {s}.person_history (workspace, by_n, person_id);
ANALYZE {s}.enrichments;
ANALYZE {s}.person_history;
`

// numberAddresses numbers the addresses the people's found_by name (in
// byte order, per workspace) and makes found_by the integer[] of their
// numbers, in its order: one rewrite of the table (ALTER ... TYPE, its
// USING a function of the schema, dropped after: pg_temp needs the TEMP
// privilege, which a role may lack), its indexes made again. The function
// is PL/pgSQL: the same in SQL had not finished after 600 s at 3,000,000
// people; this one numbers 100,000 in 58 ms. The view
// people_found_by shows the lists as texts, in byte order.
const numberAddresses = `
CREATE TABLE {s}.addresses (
	workspace text NOT NULL REFERENCES {s}.workspaces (name) ON DELETE CASCADE,
	n         integer NOT NULL,
	address   text NOT NULL,
	renamed   integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, n),
	UNIQUE (workspace, address)
);
INSERT INTO {s}.addresses (workspace, n, address)
	SELECT workspace, row_number() OVER (PARTITION BY workspace ORDER BY address COLLATE "C"), address
	FROM (SELECT DISTINCT workspace, unnest(found_by) AS address FROM {s}.people WHERE found_by IS NOT NULL) AS x;
CREATE FUNCTION {s}.leadsync_numbers(ws text, l text[]) RETURNS integer[] LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF l IS NULL THEN RETURN NULL; END IF;
	RETURN ARRAY(SELECT a.n FROM unnest(l) WITH ORDINALITY AS u(address, o) JOIN {s}.addresses a ON a.workspace = ws AND a.address = u.address ORDER BY u.o);
END $$;
ALTER TABLE {s}.people ALTER COLUMN found_by TYPE integer[] USING {s}.leadsync_numbers(workspace, found_by);
DROP FUNCTION {s}.leadsync_numbers(text, text[]);
CREATE VIEW {s}.people_found_by AS SELECT p.workspace, p.id, CASE WHEN p.found_by IS NULL THEN NULL ELSE
	ARRAY(SELECT a.address FROM unnest(p.found_by) AS u(n) JOIN {s}.addresses a ON a.workspace = p.workspace AND a.n = u.n ORDER BY a.address COLLATE "C") END AS found_by
	FROM {s}.people p;
ANALYZE {s}.people;
`

// countAddressChanges counts, in the workspace's row, the changes of
// its addresses: every statement that adds, renames or removes rows of
// addresses raises addresses_changed of their workspaces once (a
// trigger a statement, over its transition table), so that a reader's
// names are read again exactly when the table changed
// (sqlstate.addressesSig). The function names the workspaces of its
// table's schema when it runs, so that a schema renamed keeps it. The
// triggers fire always, also under a push's session_replication_role =
// replica (skipKeyChecks), which skips ordinary ones. No row is
// rewritten.
//
// Workspace row first: the trigger updates the workspace's row after its
// statement locked rows of addresses, so every writer of addresses locks
// that row before (writeTx by ensureWorkspace, numbers by FOR UPDATE, a
// push by deleting it in resetWorkspace), or two writers could each wait
// on the other.
const countAddressChanges = `
ALTER TABLE {s}.workspaces ADD COLUMN addresses_changed bigint NOT NULL DEFAULT 0;
CREATE FUNCTION {s}.leadsync_addresses_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('UPDATE %I.workspaces w SET addresses_changed = w.addresses_changed + 1 WHERE w.name IN (SELECT workspace FROM changed)', TG_TABLE_SCHEMA);
	RETURN NULL;
END $$;
CREATE TRIGGER addresses_added AFTER INSERT ON {s}.addresses REFERENCING NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION {s}.leadsync_addresses_changed();
CREATE TRIGGER addresses_renamed AFTER UPDATE ON {s}.addresses REFERENCING NEW TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION {s}.leadsync_addresses_changed();
CREATE TRIGGER addresses_removed AFTER DELETE ON {s}.addresses REFERENCING OLD TABLE AS changed
	FOR EACH STATEMENT EXECUTE FUNCTION {s}.leadsync_addresses_changed();
ALTER TABLE {s}.addresses ENABLE ALWAYS TRIGGER addresses_added;
ALTER TABLE {s}.addresses ENABLE ALWAYS TRIGGER addresses_renamed;
ALTER TABLE {s}.addresses ENABLE ALWAYS TRIGGER addresses_removed;
`

// migrationSteps are what a migration does in Go after its SQL, by the
// version it migrates from, in its transaction.
var migrationSteps = map[int]func(context.Context, *Backend, pgx.Tx) error{
	12: pageKeysOutsideASCII,
}

// pageKeysOutsideASCII writes the page key of every person whose page
// name has a character outside ASCII, which no lower() of PostgreSQL
// lowers as Go does (sqlstate.PGPageKey), a thousand rows a statement.
func pageKeysOutsideASCII(ctx context.Context, b *Backend, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, b.sql(`SELECT workspace, id, page_name FROM {s}.people WHERE page_name ~ '[^\x01-\x7f]'`))
	if err != nil {
		return err
	}
	var ws, ids, keys []string
	for rows.Next() {
		var w, id, page string
		if err := rows.Scan(&w, &id, &page); err != nil {
			rows.Close()
			return err
		}
		ws, ids, keys = append(ws, w), append(ids, id), append(keys, state.PageKey(page))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := 0; i < len(ids); i += 1000 {
		j := min(i+1000, len(ids))
		if _, err := tx.Exec(ctx, b.sql(`UPDATE {s}.people p SET page_key = k.key
			FROM unnest($1::text[], $2::text[], $3::text[]) AS k(workspace, id, key) WHERE p.workspace = k.workspace AND p.id = k.id`),
			ws[i:j], ids[i:j], keys[i:j]); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	if len(migrations) != SchemaVersion {
		panic("pg: migrations do not end at SchemaVersion")
	}
}

// NewerSchemaError is returned when the database's schema was written by a
// newer leadsync.
type NewerSchemaError struct {
	Schema    string
	Version   int
	WrittenBy string
}

func (e *NewerSchemaError) Error() string {
	by := ""
	if e.WrittenBy != "" {
		by = " (written by leadsync " + e.WrittenBy + ")"
	}
	return fmt.Sprintf("the PostgreSQL schema %q has version %d%s; this leadsync reads version %d or older. "+
		"Upgrade leadsync to use this state; nothing was changed", e.Schema, e.Version, by, SchemaVersion)
}

// sql replaces {s} by the quoted schema name.
func (b *Backend) sql(q string) string { return strings.ReplaceAll(q, "{s}", b.quoted) }

// schemaKey is the advisory lock that serializes schema creation and
// migration (transaction scoped).
func schemaKey(schema string) int64 { return lockKey("leadsync-schema/" + schema) }

// lockKey turns a name into an advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// readVersion returns the schema version and who wrote it; 0 when the
// schema or its version table does not exist.
func (b *Backend) readVersion(ctx context.Context, q querier) (int, string, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, b.quoted+".schema_version").Scan(&exists); err != nil {
		return 0, "", err
	}
	if !exists {
		return 0, "", nil
	}
	var v int
	var by string
	err := q.QueryRow(ctx, b.sql(`SELECT version, leadsync_version FROM {s}.schema_version`)).Scan(&v, &by)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	return v, by, err
}

// checkedVersion is readVersion that refuses a schema newer than this
// leadsync knows (a *NewerSchemaError): every reader and writer checks it.
func (b *Backend) checkedVersion(ctx context.Context, q querier) (int, error) {
	v, by, err := b.readVersion(ctx, q)
	if err != nil {
		return 0, b.wrap("reading the schema version", err)
	}
	if v > SchemaVersion {
		return 0, &NewerSchemaError{Schema: b.schema, Version: v, WrittenBy: by}
	}
	return v, nil
}

// querier is what a connection and a transaction share.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// ensureSchema creates the schema and its tables, or migrates them to
// SchemaVersion, in one transaction; a newer schema is refused.
func (b *Backend) ensureSchema(ctx context.Context, c *pgx.Conn) error {
	return b.migrate(ctx, c, SchemaVersion)
}

// migrate brings the schema to version to (tests use a lower one to make
// an old schema).
//
// A migration is not bound by one operation's deadline (opCtx): it may
// rewrite every person's row once (schema 15 took 178 s at 3,000,000
// people), and one cut short rolls back and would start again at every
// command. It is bound by its progress (watchStalls), armed only when the
// schema is older than to: a statement that waits past the stall limit
// for a lock (another process's migration), or that the server stops
// answering for, ends it, rolled back. A statement PostgreSQL runs goes
// on. It ends otherwise with its transaction, or with the process
// (PostgreSQL then rolls it back).
func (b *Backend) migrate(ctx context.Context, c *pgx.Conn, to int) error {
	v, err := b.versionBeforeMigrating(ctx, c)
	if err != nil || v >= to {
		return err
	}
	ctx, w := b.watchStalls(ctx, c, "the migration")
	defer w.end()
	return b.stalled(w, b.migrateTo(ctx, c, to), migrationWords)
}

// versionBeforeMigrating reads the schema's version on c before any
// watch is armed (a current schema arms none). The read is bound by
// DefaultStallLimit, not by ctx's deadline: a migration outlives the one
// of the operation that needs it.
func (b *Backend) versionBeforeMigrating(ctx context.Context, c *pgx.Conn) (int, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultStallLimit)
	defer cancel()
	return b.checkedVersion(ctx, c)
}

// migrationWords are what the error of a stalled migration says of it.
var migrationWords = stallWords{
	doing:   "migrating the schema",
	undone:  "the migration was rolled back: the schema is as it was",
	unknown: "whether it was committed is unknown: the next command reads the schema's version, and migrates it if it must",
}

// migrateTo is migrate's work, in its watch's ctx: the schema's version
// is read again under the schema's lock.
func (b *Backend) migrateTo(ctx context.Context, c *pgx.Conn, to int) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return b.wrap("migrating the schema", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, schemaKey(b.schema)); err != nil {
		return b.wrap("migrating the schema", err)
	}
	if _, err := tx.Exec(ctx, b.sql(`CREATE SCHEMA IF NOT EXISTS {s}`)); err != nil {
		return b.wrap(fmt.Sprintf("creating the schema %q", b.schema), err)
	}
	if _, err := tx.Exec(ctx, b.sql(`CREATE TABLE IF NOT EXISTS {s}.schema_version (version integer NOT NULL, leadsync_version text NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`)); err != nil {
		return b.wrap("creating the schema version table", err)
	}
	// Read again under the lock: another process may have migrated.
	v, err := b.checkedVersion(ctx, tx)
	if err != nil {
		return err
	}
	for i := v; i < to; i++ {
		_, err := tx.Exec(ctx, b.sql(migrations[i]))
		if step := migrationSteps[i]; err == nil && step != nil {
			err = step(ctx, b, tx)
		}
		if err != nil {
			return b.wrap(fmt.Sprintf("migrating the schema %q from version %d to %d (nothing was changed)", b.schema, i, i+1), err)
		}
	}
	if v == 0 {
		_, err = tx.Exec(ctx, b.sql(`INSERT INTO {s}.schema_version (version, leadsync_version) VALUES ($1, $2)`), to, version.String())
	} else {
		_, err = tx.Exec(ctx, b.sql(`UPDATE {s}.schema_version SET version = $1, leadsync_version = $2, migrated_at = now()`), to, version.String())
	}
	if err != nil {
		return b.wrap("recording the schema version", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return b.wrap("migrating the schema", err)
	}
	return nil
}
