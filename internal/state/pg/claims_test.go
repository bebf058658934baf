package pg

import (
	"context"
	"testing"
)

// TestClaimsConnectAgain: the session of a holder of claims ends under it
// (pg_terminate_backend, what a restart of PostgreSQL does to every
// session). Its next claim and release connect again instead of failing,
// and the claim it held lives again: another workspace's holder is told
// that this one holds the person.
func TestClaimsConnectAgain(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := pooledSchema(t, cs)
	dach := newPG(t, cs, schema, "dach", alice)
	mustNoErr(t, dach.CreateWorkspace("dach"), "create dach")
	mustNoErr(t, dach.CreateWorkspace("uk"), "create uk")
	uk := newPG(t, cs, schema, "uk", bob)
	held, err := dach.Claims("acct")
	mustNoErr(t, err, "claims of dach")
	defer held.Close()
	other, err := uk.Claims("acct")
	mustNoErr(t, err, "claims of uk")
	defer other.Close()

	first := []string{"n:1", "p:first"}
	got, err := held.Claim(first)
	if err != nil || !got.Held {
		t.Fatalf("claim before the session ended: %+v %v", got, err)
	}
	endSession(t, cs, held.(*claims))
	second := []string{"n:2", "p:second"}
	if got, err := held.Claim(second); err != nil || !got.Held {
		t.Fatalf("claim after the session ended: %+v %v", got, err)
	}
	if got, err := other.Claim(first); err != nil || got.Held || got.HeldBy != "dach" {
		t.Errorf("uk's claim of dach's person after dach connected again: %+v %v; want it held by dach", got, err)
	}
	endSession(t, cs, held.(*claims))
	mustNoErr(t, held.Release(second, true), "release after the session ended again")
	mustNoErr(t, held.Release(first, true), "release")
	if got, err := other.Claim(first); err != nil || !got.Held || got.Since != "dach" || !got.Enriched {
		t.Errorf("uk's claim once dach released the person enriched: %+v %v", got, err)
	}
}

// endSession ends the database session of the holder c from another
// connection, as a restart of the server does. With a timeout,
// pg_terminate_backend (PostgreSQL 14 and later) returns once the session
// is gone, so that the holder's next statement meets a closed connection.
func endSession(t *testing.T, cs string, c *claims) {
	t.Helper()
	ctx := context.Background()
	conn, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer conn.Close(ctx)
	var ended bool
	err = conn.QueryRow(ctx, `SELECT pg_terminate_backend($1, 60000)`, c.conn.PgConn().PID()).Scan(&ended)
	if err != nil || !ended {
		t.Fatalf("pg_terminate_backend: %v %v", ended, err)
	}
}
