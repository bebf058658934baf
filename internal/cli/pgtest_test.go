package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/testenv"
)

// pgTestSchema is LEADSYNC_TEST_PG and a new schema name for one test,
// dropped when it ends; the test is skipped without PostgreSQL.
func pgTestSchema(t *testing.T) (connStr, schema string) {
	t.Helper()
	cs := os.Getenv("LEADSYNC_TEST_PG")
	if cs == "" {
		testenv.Skip(t, "needs PostgreSQL: source .ci/pg-start (it sets LEADSYNC_TEST_PG)")
	}
	var b [6]byte
	rand.Read(b[:])
	schema = "cli_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		if c, err := pgx.Connect(ctx, cs); err == nil {
			c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	return cs, schema
}
