package sqlstate

// The queries both engines run, in PostgreSQL's spelling ($n parameters,
// {s}. before a table): Dialect.Rewrite turns them into SQLite's. A query
// a command needs later (the searches due, an enrich block's candidates,
// a sheet's people in order) goes here, with its index in both schemas.
var (
	SelectHeader = `SELECT lineage, serial, format_version, leadsync_version, usage, extra FROM {s}.workspaces WHERE name = $1`
	CountPeople  = `SELECT count(*) FROM {s}.people WHERE workspace = $1`
	SelectPeople = `SELECT id, ` + selectList(FieldColumns(LeadCols)) + `,
		first_seen, last_seen, found_by, profile, profile_read_at, raw, extra, status, status_since, checked_at FROM {s}.people WHERE workspace = $1`
	SelectEnrichments = `SELECT person_id, enriched_at, by_n, copied_n, ` + selectList(FieldColumns(ResultCols)) + `, extra
		FROM {s}.enrichments WHERE workspace = $1`
	SelectHistory = `SELECT person_id, n, field, value_before, value_after, at, by_n, call
		FROM {s}.person_history WHERE workspace = $1`
	SelectSearches = `SELECT address, generation, request, request_hash, ran_at, result_count, max_results, capped, lead_ids, added, removed, runs, extra, changed
		FROM {s}.searches WHERE workspace = $1`
	SelectProfileReads = `SELECT address, generation, request, request_hash, read_at, person_id, extra FROM {s}.profile_reads WHERE workspace = $1`
	SelectFailures     = `SELECT address, at, message, status, extra FROM {s}.failures WHERE workspace = $1`
	SelectEvents       = `SELECT n, event FROM {s}.events WHERE workspace = $1 ORDER BY n`

	CountEvents = `SELECT count(*) FROM {s}.events WHERE workspace = $1`

	// The questions of a Base (base.go), each answered from an index
	// (schema.go's baseIndexes).
	CountUnlisted            = `SELECT count(*) FROM {s}.people INDEXED BY people_unlisted WHERE workspace = $1 AND ` + unlisted
	SelectLeadIDs            = `SELECT lead_ids FROM {s}.searches WHERE workspace = $1 AND address = $2`
	SelectLeadLists          = `SELECT address, lead_ids FROM {s}.searches WHERE workspace = $1`
	CountStatus              = `SELECT count(*) FROM {s}.people WHERE workspace = $1 AND status = $2`
	CountEnrichmentsBy       = `SELECT ` + NameOf("$1", "x.by_n") + `, x.c FROM (SELECT by_n, count(*) AS c FROM {s}.enrichments WHERE workspace = $1 GROUP BY by_n) AS x`
	CountEnrichmentsByStatus = `SELECT validation_status, count(*) FROM {s}.enrichments WHERE workspace = $1 GROUP BY validation_status`
	CountHistoryByField      = `SELECT field, count(*) FROM {s}.person_history WHERE workspace = $1 GROUP BY field`
	CountPeopleWithHistory   = `SELECT count(DISTINCT person_id) FROM {s}.person_history WHERE workspace = $1`
	CountEnrichedAfter       = `SELECT count(*) FROM {s}.enrichments WHERE workspace = $1 AND enriched_at > $2`
	SelectCheckedAfter       = `SELECT id FROM {s}.people WHERE workspace = $1 AND checked_at > $2`
	// SelectEnrichedBy are the people an enrich block enriched (their
	// count from the index alone); the enrichments copied from other
	// workspaces are SelectCopiedBy's.
	SelectEnrichedBy = `SELECT person_id FROM {s}.enrichments WHERE workspace = $1 AND by_n = ` + numberOf + `$2)`
	CountEnrichedBy  = `SELECT count(*) FROM {s}.enrichments WHERE workspace = $1 AND by_n = ` + numberOf + `$2)`
	// SelectChanged and SelectLeft are the people whose e-mail may no
	// longer be current (state.Person.EmailNotCurrent): those with a
	// history, those gone from the network (the enriched among them
	// count). Two queries: SQLite answers their UNION by a merge, in the
	// order of every person.
	SelectChanged = `SELECT DISTINCT person_id FROM {s}.person_history WHERE workspace = $1`
	SelectLeft    = `SELECT id FROM {s}.people WHERE workspace = $1 AND status = 'left'`
	// SelectPeopleIDs is the start of a query of people's IDs (Exist adds
	// the IDs asked for), answered from the people's primary key.
	SelectPeopleIDs = `SELECT id FROM {s}.people WHERE workspace = $1`
	// SelectCompanyDomains are the companies and company domains of the
	// enrichments (state.CompanyDomain: the lead's company, else the
	// enrichment's), read from the enrichments and each one's person by
	// their primary keys.
	SelectCompanyDomains = `SELECT DISTINCT CASE WHEN p.company = '' THEN e.company ELSE p.company END, e.company_domain
		FROM {s}.enrichments e JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id
		WHERE e.workspace = $1 AND e.company_domain <> ''`
	// SelectEnrichedDomains are the distinct company domains of the
	// enrichments, read without their people.
	SelectEnrichedDomains = `SELECT DISTINCT company_domain FROM {s}.enrichments WHERE workspace = $1 AND company_domain <> ''`
	// SelectIDsAfter pages through the people's IDs: the byte order
	// (twice) and the page's size go in.
	SelectIDsAfter = `SELECT id FROM {s}.people WHERE workspace = $1 AND id%[1]s > $2 ORDER BY id%[2]s LIMIT %[3]d`
	// SelectTracks are the track addresses of the people's records
	// (state.Person.Tracked, in the person's extra), SelectTracked a
	// track's people: SQLite's spelling; the partial index people_tracked
	// finds the people holding some.
	SelectTracks  = `SELECT DISTINCT j.key FROM {s}.people p INDEXED BY people_tracked, json_each(p.extra, '$.tracked') j WHERE p.workspace = $1 AND ` + trackedPeople
	SelectTracked = `SELECT p.id FROM {s}.people p INDEXED BY people_tracked, json_each(p.extra, '$.tracked') j WHERE p.workspace = $1 AND ` + trackedPeople + ` AND j.key = $2`

	// The questions of a partial state (state.Names, PeopleStore.Naming):
	// the addresses people's records name, counted, and the people naming
	// one (with SelectEnrichedBy; a track's: SelectTracked). The block
	// that copied an enrichment is numbered in copied_n (the partial
	// index enrichments_copied), a track's read in the person's extra (the
	// index people_tracked), the call that saw a change in the history
	// (the index person_history_by).
	CountCopiedBy   = `SELECT ` + NameOf("$1", "x.copied_n") + `, x.c FROM (SELECT copied_n, count(*) AS c FROM {s}.enrichments WHERE workspace = $1 AND copied_n IS NOT NULL GROUP BY copied_n) AS x`
	CountHistoryBy  = `SELECT ` + NameOf("$1", "x.by_n") + `, x.c FROM (SELECT by_n, count(DISTINCT person_id) AS c FROM {s}.person_history WHERE workspace = $1 GROUP BY by_n) AS x`
	CountTracks     = `SELECT j.key, count(*) FROM {s}.people p INDEXED BY people_tracked, json_each(p.extra, '$.tracked') j WHERE p.workspace = $1 AND ` + trackedPeople + ` GROUP BY j.key`
	SelectCopiedBy  = `SELECT person_id FROM {s}.enrichments WHERE workspace = $1 AND copied_n IS NOT NULL AND copied_n = ` + numberOf + `$2)`
	SelectHistoryBy = `SELECT DISTINCT person_id FROM {s}.person_history WHERE workspace = $1 AND by_n = ` + numberOf + `$2)`

	// The questions of a plan of enrich blocks (state.EnrichIndex): an
	// enrich block's enrichments made up to a time (an index range on
	// enrichments_by) and the people without a page name (the index
	// people_page_key: an empty key is an empty page name, as lower()
	// empties no text); those who left: SelectLeft. pgSelectPageless is
	// PostgreSQL's spelling of the index's key.
	CountEnrichedBefore = `SELECT count(*) FROM {s}.enrichments WHERE workspace = $1 AND by_n = ` + numberOf + `$2) AND enriched_at <= $3`
	SelectPageless      = `SELECT id FROM {s}.people WHERE workspace = $1 AND ` + PageKeyOf + ` = ''`
	pgSelectPageless    = `SELECT id FROM {s}.people WHERE workspace = $1 AND ` + PGPageKey + ` = ''`
	// SelectSketched are the people of an enrich block's enrichments up
	// to a time, as state.Sketch keeps them.
	SelectSketched = `SELECT person_id, enriched_at FROM {s}.enrichments WHERE workspace = $1 AND by_n = ` + numberOf + `$2) AND enriched_at <= $3`
	// SelectEnrichedIDsBefore are the IDs alone of SelectSketched's people
	// (state.EnrichedBeforeLister).
	SelectEnrichedIDsBefore = `SELECT person_id FROM {s}.enrichments WHERE workspace = $1 AND by_n = ` + numberOf + `$2) AND enriched_at <= $3`
	// SelectSketchedAmong is the start of a query of the enrichments of
	// the people asked for (SketchedAmong adds them): a look into the
	// enrichments' primary key per ID.
	SelectSketchedAmong = `SELECT person_id, ` + NameOf("$1", "by_n") + `, enriched_at FROM {s}.enrichments WHERE workspace = $1`
	// SelectEnrichedAfter pages through the IDs of the people holding an
	// enrichment (state.EnrichmentLister), as SelectIDsAfter through the
	// people's: the enrichments' primary key alone (a covering index in
	// SQLite), no join with the people. The byte order (twice) and the
	// page's size go in.
	SelectEnrichedAfter = `SELECT person_id AS id FROM {s}.enrichments WHERE workspace = $1 AND person_id%[1]s > $2 ORDER BY person_id%[2]s LIMIT %[3]d`
	// SelectEnrichers are the enrichments' blocks, each once: a walk of
	// the index enrichments_by from one number to the next (a DISTINCT
	// would read every entry), each number's address named.
	SelectEnrichers = `WITH RECURSIVE b(a) AS (SELECT min(by_n) FROM {s}.enrichments WHERE workspace = $1
		UNION ALL SELECT (SELECT min(by_n) FROM {s}.enrichments WHERE workspace = $1 AND by_n > b.a) FROM b WHERE b.a IS NOT NULL)
		SELECT ` + NameOf("$1", "b.a") + ` FROM b WHERE a IS NOT NULL`
	pgCountUnlisted = `SELECT count(*) FROM {s}.people WHERE workspace = $1 AND (found_by IS NULL OR cardinality(found_by) = 0)`
	pgCountTracks   = `SELECT k.k, count(*) FROM {s}.people p, jsonb_object_keys(p.extra->'tracked') AS k(k) WHERE p.workspace = $1 AND jsonb_exists(p.extra, 'tracked') GROUP BY k.k`

	// SelectPaged are the people whose page key (PageKeyOf) is one of
	// the texts of the JSON array $2 (PageFinder.Paged), found through
	// the index people_page_key; pgSelectPaged is PostgreSQL's spelling
	// (an array, so that the keys are the index's condition).
	SelectPaged   = `SELECT id, page_name FROM {s}.people WHERE workspace = $1 AND ` + PageKeyOf + ` IN (SELECT value FROM json_each($2))`
	pgSelectPaged = `SELECT id, page_name FROM {s}.people WHERE workspace = $1 AND ` + PGPageKey + ` = ANY(ARRAY(SELECT jsonb_array_elements_text(CAST($2 AS jsonb))))`

	// pgSelectTracks and pgSelectTracked are SelectTracks and
	// SelectTracked in PostgreSQL's spelling (jsonb; the partial index
	// people_tracked).
	pgSelectTracks  = `SELECT DISTINCT jsonb_object_keys(p.extra->'tracked') FROM {s}.people p WHERE p.workspace = $1 AND jsonb_exists(p.extra, 'tracked')`
	pgSelectTracked = `SELECT p.id FROM {s}.people p WHERE p.workspace = $1 AND jsonb_exists(p.extra, 'tracked') AND jsonb_exists(p.extra->'tracked', $2)`

	InsertWorkspace  = `INSERT INTO {s}.workspaces (name, lineage, serial, format_version, leadsync_version, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING`
	WorkspaceLineage = `SELECT lineage FROM {s}.workspaces WHERE name = $1`
	UpdateMeta       = `UPDATE {s}.workspaces SET extra = $2, format_version = $3, leadsync_version = $4 WHERE name = $1`
	UpdateUsage      = `UPDATE {s}.workspaces SET usage = $2 WHERE name = $1`
	RaiseSerial      = `UPDATE {s}.workspaces SET serial = serial + 1 WHERE name = $1 RETURNING serial`
	SetSerial        = `UPDATE {s}.workspaces SET serial = $2 WHERE name = $1`
	ReadSerial       = `SELECT serial FROM {s}.workspaces WHERE name = $1`

	InsertEvent      = `INSERT INTO {s}.events (workspace, journal_id, seq, at, kind, address, event) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (workspace, journal_id, seq) DO NOTHING`
	SelectEvent      = `SELECT event FROM {s}.events WHERE workspace = $1 AND journal_id = $2 AND seq = $3`
	DeleteEventsUpTo = `DELETE FROM {s}.events WHERE workspace = $1 AND journal_id = $2 AND seq < $3`
	DeleteSeenEvents = `DELETE FROM {s}.events WHERE workspace = $1 AND n <= $2`
	DeleteJournal    = `DELETE FROM {s}.events WHERE workspace = $1 AND journal_id = $2`

	DeletePerson      = `DELETE FROM {s}.people WHERE workspace = $1 AND id = $2`
	DeleteEnrichment  = `DELETE FROM {s}.enrichments WHERE workspace = $1 AND person_id = $2`
	DeleteHistory     = `DELETE FROM {s}.person_history WHERE workspace = $1 AND person_id = $2`
	InsertHistory     = `INSERT INTO {s}.person_history (` + selectList(HistoryCols) + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (workspace, person_id, n) DO NOTHING`
	DeleteSearch      = `DELETE FROM {s}.searches WHERE workspace = $1 AND address = $2`
	DeleteProfileRead = `DELETE FROM {s}.profile_reads WHERE workspace = $1 AND address = $2`
	DeleteFailure     = `DELETE FROM {s}.failures WHERE workspace = $1 AND address = $2`
)

// WorkspaceTables are the tables of a workspace's rows, children first:
// replacing a workspace's state deletes its rows from each.
var WorkspaceTables = []struct{ Name, Column string }{
	{"events", "workspace"}, {"person_history", "workspace"}, {"enrichments", "workspace"}, {"people", "workspace"},
	{"searches", "workspace"}, {"profile_reads", "workspace"}, {"failures", "workspace"}, {"workspaces", "name"},
}

// PageKeyOf is a person's page key (state.PageKey of the page name), the
// expression of the index people_page_key, word for word: page_key,
// which every writer sets, or, for a row written before it was (schema
// 4, pg 13) whose page name the engine lowers as Go does, that name in
// lower case: the migration leaves such rows as they are. PGPageKey is
// PostgreSQL's spelling, in the "C" collation (ASCII).
const (
	PageKeyOf = `coalesce(nullif(page_key, ''), lower(page_name))`
	PGPageKey = `coalesce(nullif(page_key, ''), lower(page_name COLLATE "C"))`
)

// unlisted is the condition of a person no search, profile, import or
// track lists (found_by empty): the condition of the index
// people_unlisted, word for word, so that the index answers it.
//
// SQLite's spellings of the questions a partial index answers name it
// (INDEXED BY): without statistics, its planner takes another index on
// the workspace alone as good, and in a database migrated to schema 4 it
// took people_page_key, the last one made, and read every person (0.45 s
// at 3,000,000 people for CountUnlisted, where the index reads none).
const unlisted = `(found_by IS NULL OR found_by = '[]')`

// NameOf is the address numbered col in workspace ws (the table
// addresses, addrs.go), in a query's columns: an enrichment's block
// (by_n), the block that copied it (copied_n, NULL when none), a
// history's call (by_n). The readers of whole rows name the numbers in
// Go instead (blockNames; pg's nameOf); a query of few rows or groups
// names them here.
func NameOf(ws, col string) string {
	return `(SELECT a.address FROM {s}.addresses a WHERE a.workspace = ` + ws + ` AND a.n = ` + col + `)`
}

// trackedPeople is the condition of a person holding a track's read: the
// condition of the index people_tracked, word for word.
const trackedPeople = `p.extra LIKE '%"tracked":%'`

// SelectSeenBefore are up to $3 people no search has seen since $2 (or
// ever), from the index people_last_seen (schema version 5; pg 14):
// those retention removes (state.Base.ExpiredIDs). Two ranges of the
// index: asked with OR, SQLite walked every person's entry (0.35 s at
// 3,000,000 people, 20 ms so). SQLite's spelling names the index, as for
// the partial indexes (unlisted).
const (
	SelectSeenBefore = `SELECT id FROM {s}.people INDEXED BY people_last_seen WHERE workspace = $1 AND last_seen < $2
		UNION ALL SELECT id FROM {s}.people INDEXED BY people_last_seen WHERE workspace = $1 AND last_seen IS NULL LIMIT $3`
	pgSelectSeenBefore = `SELECT id FROM {s}.people WHERE workspace = $1 AND last_seen < $2
		UNION ALL SELECT id FROM {s}.people WHERE workspace = $1 AND last_seen IS NULL LIMIT $3`
)
