package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScriptsPG runs the end-to-end scripts that do not look at the state
// file itself (its path, journal or lock) against the pg backend: each
// script gets a schema of its own (LEADSYNC_TEST_PG_SCHEMA, test only), so
// plan, apply, saved plans, faults and exports behave the same on both.
func TestScriptsPG(t *testing.T) {
	cs := pgConnStr(t)
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if strings.Contains(src, "state.json") || strings.Contains(src, ".leadsync/state") || strings.Contains(src, "force-unlock") || strings.Contains(src, "--state") {
			continue // about the local file itself
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no script to run on pg")
	}
	p := scriptParams()
	p.Dir, p.Files = "", files
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		var b [6]byte
		rand.Read(b[:])
		schema := "script_" + hex.EncodeToString(b[:])
		env.Setenv(testBackendEnv, schema)
		env.Setenv("LEADSYNC_PG_CONN_STR", cs)
		workDir := env.WorkDir
		env.Defer(func() {
			// The state went to the database, not to a file.
			filepath.WalkDir(workDir, func(path string, d os.DirEntry, err error) error {
				if err == nil && d.Name() == "state.json" {
					env.T().Fatal("a state file was written on the pg backend: " + path)
				}
				return nil
			})
			ctx := context.Background()
			if c, err := pgx.Connect(ctx, cs); err == nil {
				c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
				c.Close(ctx)
			}
		})
		return nil
	}
	testscript.Run(t, p)
}
