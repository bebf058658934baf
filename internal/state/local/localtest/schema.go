package localtest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the driver the state database is opened with

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// BeforeSchema8 takes the enrichments' and histories' addresses back to
// texts (schema version 7): the blocks and calls as texts, the copying
// block in the enrichment's extra, their indexes, and only the addresses
// found_by names numbered.
const BeforeSchema8 = `DROP INDEX enrichments_by; DROP INDEX enrichments_copied; DROP INDEX person_history_by;
	ALTER TABLE enrichments ADD COLUMN by_address text NOT NULL DEFAULT '';
	UPDATE enrichments SET by_address = (SELECT a.address FROM addresses a WHERE a.workspace = enrichments.workspace AND a.n = enrichments.by_n),
		extra = CASE WHEN copied_n IS NULL THEN extra ELSE json_set(coalesce(extra, '{}'), '$.copied_by',
			(SELECT a.address FROM addresses a WHERE a.workspace = enrichments.workspace AND a.n = enrichments.copied_n)) END;
	ALTER TABLE enrichments DROP COLUMN by_n; ALTER TABLE enrichments DROP COLUMN copied_n;
	ALTER TABLE person_history ADD COLUMN by_address text NOT NULL DEFAULT '';
	UPDATE person_history SET by_address = (SELECT a.address FROM addresses a WHERE a.workspace = person_history.workspace AND a.n = person_history.by_n);
	ALTER TABLE person_history DROP COLUMN by_n;
	DELETE FROM addresses WHERE NOT EXISTS (SELECT 1 FROM people p, json_each(p.found_by) j WHERE p.workspace = addresses.workspace AND j.value = addresses.n);
	CREATE INDEX enrichments_by ON enrichments (workspace, by_address, enriched_at);
	CREATE INDEX enrichments_copied ON enrichments (workspace, json_extract(extra, '$.copied_by')) WHERE json_extract(extra, '$.copied_by') IS NOT NULL;
	CREATE INDEX person_history_by ON person_history (workspace, by_address, person_id);
`

// ToSchema7 takes the closed state database at path back to schema
// version 7 (BeforeSchema8), as a leadsync of that version left it. It
// returns how many recorded calls of an interrupted apply wait in it
// (the rows of its events table).
func ToSchema7(t testing.TB, path string) (pending int) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer db.Close()
	if _, err := db.Exec(BeforeSchema8 + ` UPDATE schema_version SET version = 7`); err != nil {
		t.Fatalf("take %s back to schema version 7: %v", path, err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM events`).Scan(&pending); err != nil {
		t.Fatalf("count the recorded calls of %s: %v", path, err)
	}
	return pending
}

// InterruptedAtSchema7 leaves in b, the local backend of the state
// database at path, what an apply killed half-way leaves
// (backendtest.Interrupted), and closes b. It takes the database back to
// schema version 7: an older leadsync's state whose calls wait to be
// folded in. It returns the interrupted apply's state, every call folded.
func InterruptedAtSchema7(t testing.TB, b backend.Backend, path string) *state.State {
	t.Helper()
	want := backendtest.Interrupted(t, b)
	if err := backend.Close(b); err != nil {
		t.Fatalf("close %s: %v", path, err)
	}
	if ToSchema7(t, path) == 0 {
		t.Fatalf("no call of the interrupted apply waits in %s", path)
	}
	return want
}
