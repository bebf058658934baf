package sqlstate

// SchemaVersion is the version of the SQLite tables this build reads and
// writes (its own count, kept in the schema_version table: PRAGMA
// user_version is left to the user). A newer one is refused.
const SchemaVersion = 8

// baseIndexes are the indexes a Base's questions are answered from
// (queries.go), in the schema since version 2.
const baseIndexes = `
CREATE INDEX IF NOT EXISTS people_status ON people (workspace, status);
CREATE INDEX IF NOT EXISTS people_checked_at ON people (workspace, checked_at) WHERE checked_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS people_unlisted ON people (workspace) WHERE ` + unlisted + `;
CREATE INDEX IF NOT EXISTS people_tracked ON people (workspace) WHERE extra LIKE '%"tracked":%';
CREATE INDEX IF NOT EXISTS enrichments_at ON enrichments (workspace, enriched_at);
CREATE INDEX IF NOT EXISTS enrichments_status ON enrichments (workspace, validation_status);
`

// enrichmentsByText was the index of the enrichments by block and time
// in the schema's versions 2 to 7, and partialIndexes
// those a partial state's questions were answered from (the blocks that
// copied enrichments, the calls that saw people's changes) in versions
// 3 to 7, over the addresses as texts: numberedIndexes replace them.
const (
	enrichmentsByText = `
CREATE INDEX IF NOT EXISTS enrichments_by ON enrichments (workspace, by_address, enriched_at);
`
	partialIndexes = `
CREATE INDEX IF NOT EXISTS enrichments_copied ON enrichments (workspace, json_extract(extra, '$.copied_by')) WHERE json_extract(extra, '$.copied_by') IS NOT NULL;
CREATE INDEX IF NOT EXISTS person_history_by ON person_history (workspace, by_address, person_id);
`
)

// numberedIndexes are the indexes of the enrichments and the histories
// by the numbers of their addresses (queries.go: an enrich block's
// enrichments, the copies a block made, the calls that saw people's
// changes), in the schema since version 8.
const numberedIndexes = `
CREATE INDEX enrichments_by ON enrichments (workspace, by_n, enriched_at);
CREATE INDEX enrichments_copied ON enrichments (workspace, copied_n) WHERE copied_n IS NOT NULL;
CREATE INDEX person_history_by ON person_history (workspace, by_n, person_id);
`

// numberBlocks is the migration to schema version 8: the enrichments'
// blocks (by_n), the blocks that copied them (copied_n, out of extra)
// and the histories' calls (by_n) hold the numbers of their addresses,
// as found_by does, so that a move renames one row of addresses.
// Each workspace's commonest block of enrichments not numbered yet is
// numbered 0, the new column's default: SQLite adds such a column
// without writing a row, and only the other rows are updated, found
// through the old index by address (none when one block made every
// enrichment; NOT IN read every row, 4.1 s at 1,000,000 enrichments).
// The text columns go (SQLite writes the table again).
const numberBlocks = `
INSERT INTO addresses (workspace, n, address) SELECT workspace, 0, by_address FROM
	(SELECT workspace, by_address, row_number() OVER (PARTITION BY workspace ORDER BY count(*) DESC, by_address) AS r FROM enrichments e
		WHERE NOT EXISTS (SELECT 1 FROM addresses a WHERE a.workspace = e.workspace AND a.address = e.by_address) GROUP BY workspace, by_address) AS x
	WHERE r = 1;
INSERT INTO addresses (workspace, n, address) SELECT workspace, (SELECT coalesce(max(n), 0) FROM addresses a WHERE a.workspace = x.workspace) + row_number() OVER (PARTITION BY workspace ORDER BY address), address
	FROM (SELECT DISTINCT workspace, by_address AS address FROM enrichments
		UNION SELECT DISTINCT workspace, json_extract(extra, '$.copied_by') FROM enrichments WHERE json_extract(extra, '$.copied_by') IS NOT NULL
		UNION SELECT DISTINCT workspace, by_address FROM person_history) AS x
	WHERE NOT EXISTS (SELECT 1 FROM addresses a WHERE a.workspace = x.workspace AND a.address = x.address);
ALTER TABLE enrichments ADD COLUMN by_n integer NOT NULL DEFAULT 0;
ALTER TABLE enrichments ADD COLUMN copied_n integer;
UPDATE enrichments SET copied_n = (SELECT a.n FROM addresses a WHERE a.workspace = enrichments.workspace AND a.address = json_extract(enrichments.extra, '$.copied_by')),
	extra = json_remove(extra, '$.copied_by') WHERE json_extract(extra, '$.copied_by') IS NOT NULL;
UPDATE enrichments SET by_n = (SELECT a.n FROM addresses a WHERE a.workspace = enrichments.workspace AND a.address = enrichments.by_address)
	WHERE (workspace, by_address) IN (SELECT workspace, address FROM addresses WHERE n <> 0);
ALTER TABLE person_history ADD COLUMN by_n integer NOT NULL DEFAULT 0;
UPDATE person_history SET by_n = (SELECT a.n FROM addresses a WHERE a.workspace = person_history.workspace AND a.address = person_history.by_address)
	WHERE (workspace, by_address) IN (SELECT workspace, address FROM addresses WHERE n <> 0);
DROP INDEX IF EXISTS enrichments_by;
DROP INDEX IF EXISTS enrichments_copied;
DROP INDEX IF EXISTS person_history_by;
ALTER TABLE enrichments DROP COLUMN by_address;
ALTER TABLE person_history DROP COLUMN by_address;
` + numberedIndexes

// PageKeyFunc is the SQL function, in Go, of a page name's key
// (state.PageKey): the local backend registers it with the driver, and
// the migration to schema version 4 fills page_key with it. The engines'
// own lower() lowers letters otherwise than Go.
const PageKeyFunc = "leadsync_page_key"

// pageKeys are the people's page keys (state.PageKey of page_name) and
// their index (PageFinder.Paged: SelectPaged), in the schema since
// version 4; the index of page names as written goes, as nothing asks
// for them. Only the rows whose key SQLite's lower() does not give are
// written (PageKeyOf): a migration that rewrote every row took 22 s at
// 3,000,000 people.
const pageKeys = `
ALTER TABLE people ADD COLUMN page_key text NOT NULL DEFAULT '';
UPDATE people SET page_key = ` + PageKeyFunc + `(page_name) WHERE page_name <> '' AND ` + PageKeyFunc + `(page_name) <> lower(page_name);
DROP INDEX IF EXISTS people_page_name;
CREATE INDEX people_page_key ON people (workspace, (` + PageKeyOf + `));
`

// seenIndex is the index of the people by the time a search last saw
// them, which retention asks (SelectSeenBefore), in the schema since
// version 5: without it, finding the few people to remove read all of
// them.
const seenIndex = `
CREATE INDEX IF NOT EXISTS people_last_seen ON people (workspace, last_seen);
`

// SQLiteMigrations takes a database of schema version v (the index) to
// the next one.
var SQLiteMigrations = map[int]string{
	1: baseIndexes + enrichmentsByText,
	2: partialIndexes,
	3: pageKeys,
	4: seenIndex,
	5: numberAddresses,
	6: countAddressChanges,
	7: numberBlocks,
}

// SQLiteSchema makes the tables of a local state: the same tables and
// columns as the PostgreSQL schema (internal/state/pg, schema version 8;
// TestSameTablesAsPostgres compares them), in SQLite's types: times are
// texts in TimeLayout, lists JSON arrays, JSON documents texts. The
// workspace column names the local workspace the file belongs to (one per
// file). The workspaces' service and configuration (pg schema 10) are
// there for the same columns; this version keeps their values in the
// row's extra, as StateExtra encodes them. The tables the local backend keeps in files this version (locks,
// pace, ledger, ledger_runs, ledger_accounts, erasures, claims) are not here.
const SQLiteSchema = `
CREATE TABLE schema_version (
	version          integer NOT NULL,
	leadsync_version text NOT NULL,
	migrated_at      text NOT NULL
);
CREATE TABLE workspaces (
	name             text PRIMARY KEY,
	lineage          text NOT NULL,
	serial           integer NOT NULL DEFAULT 0,
	format_version   integer NOT NULL,
	leadsync_version text NOT NULL DEFAULT '',
	created_at       text NOT NULL,
	usage            text NOT NULL DEFAULT '{}',
	extra            text,
	service          text NOT NULL DEFAULT '',
	configuration    text NOT NULL DEFAULT '',
	addresses_changed integer NOT NULL DEFAULT 0
);
CREATE TABLE people (
	workspace       text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
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
	first_seen      text,
	last_seen       text,
	found_by        text,
	profile         text,
	profile_read_at text,
	raw             text,
	extra           text,
	status          text NOT NULL DEFAULT '',
	status_since    text,
	checked_at      text,
	page_key        text NOT NULL DEFAULT '',
	PRIMARY KEY (workspace, id)
);
CREATE INDEX people_page_key ON people (workspace, (` + PageKeyOf + `));
CREATE INDEX people_network_id ON people (network_id);
CREATE TABLE enrichments (
	workspace         text NOT NULL,
	person_id         text NOT NULL,
	enriched_at       text NOT NULL,
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
	extra             text,
	by_n              integer NOT NULL DEFAULT 0,
	copied_n          integer,
	PRIMARY KEY (workspace, person_id),
	FOREIGN KEY (workspace, person_id) REFERENCES people (workspace, id) ON DELETE CASCADE
);
CREATE TABLE searches (
	workspace    text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
	address      text NOT NULL,
	generation   integer NOT NULL,
	request      text NOT NULL,
	request_hash text NOT NULL,
	ran_at       text,
	result_count integer NOT NULL,
	max_results  integer NOT NULL,
	capped       boolean NOT NULL,
	lead_ids     text,
	added        integer NOT NULL,
	removed      integer NOT NULL,
	runs         integer NOT NULL,
	extra        text,
	changed      integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE profile_reads (
	workspace    text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
	address      text NOT NULL,
	generation   integer NOT NULL,
	request      text NOT NULL,
	request_hash text NOT NULL,
	read_at      text,
	person_id    text NOT NULL,
	extra        text,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE failures (
	workspace text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
	address   text NOT NULL,
	at        text,
	message   text NOT NULL,
	status    integer NOT NULL DEFAULT 0,
	extra     text,
	PRIMARY KEY (workspace, address)
);
CREATE TABLE person_history (
	workspace    text NOT NULL,
	person_id    text NOT NULL,
	n            integer NOT NULL,
	field        text NOT NULL,
	value_before text NOT NULL,
	value_after  text NOT NULL,
	at           text NOT NULL,
	call         text NOT NULL,
	by_n         integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, person_id, n),
	FOREIGN KEY (workspace, person_id) REFERENCES people (workspace, id) ON DELETE CASCADE
);
CREATE TABLE events (
	n          integer PRIMARY KEY AUTOINCREMENT,
	workspace  text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
	journal_id text NOT NULL,
	seq        integer NOT NULL,
	at         text NOT NULL,
	kind       text NOT NULL,
	address    text NOT NULL,
	event      text NOT NULL,
	UNIQUE (workspace, journal_id, seq)
);
` + baseIndexes + numberedIndexes + seenIndex + addressesSchema + addressChanges
