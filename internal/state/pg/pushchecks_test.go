package pg

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push by a role that may set session_replication_role writes its rows
// without their keys' checks and arrives identical; beside a trigger
// leadsync did not make it keeps them (the trigger sees every person);
// a role that may not keeps them. Alone in its schema, a push that keeps
// them takes the people's key to their workspace off and puts it back,
// checked once, before its commit.
func TestPushSkipsTheKeyChecksWhenItMay(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	ctx := context.Background()
	s := backendtest.ManyPeople(t, backend.StreamBatch+321)
	push := func(b *Backend, want, wantKeyOff bool) {
		t.Helper()
		_, err := b.PushStream(backend.MemoryStream(s, "the state pushed"), true)
		mustNoErr(t, err, "push")
		if b.unchecked != want {
			t.Fatalf("the push wrote its rows without their keys' checks: %v; want %v", b.unchecked, want)
		}
		if b.keyOff != wantKeyOff {
			t.Fatalf("the push checked the people's key to their workspace at its end: %v; want %v", b.keyOff, wantKeyOff)
		}
		var keys int
		mustNoErr(t, b.conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated
			AND conrelid = $1::regclass AND confrelid = $2::regclass`, b.quoted+".people", b.quoted+".workspaces").Scan(&keys), "count the keys")
		if keys != 1 {
			t.Fatalf("after the push the people have %d keys to their workspace", keys)
		}
		got, err := newPG(t, cs, b.schema, "", bob).Load()
		mustNoErr(t, err, "load")
		if !backendtest.SameCanon(t, got, s) {
			t.Fatal("the state pushed differs")
		}
	}
	push(newPG(t, cs, testSchema(t, cs), "", alice), true, false)

	b := newPG(t, cs, testSchema(t, cs), "", alice)
	mustNoErr(t, b.Push(backendtest.ManyPeople(t, 3), false), "the first push")
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, b.sql(`CREATE TABLE {s}.counted (n integer NOT NULL); INSERT INTO {s}.counted VALUES (0);
		CREATE FUNCTION {s}.count_people() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE `+b.quoted+`.counted SET n = n + 1; RETURN NEW; END $$;
		CREATE TRIGGER counted AFTER INSERT ON {s}.people FOR EACH ROW EXECUTE FUNCTION {s}.count_people()`))
	mustNoErr(t, err, "make a trigger")
	push(b, false, true)
	var n int
	mustNoErr(t, c.QueryRow(ctx, b.sql(`SELECT n FROM {s}.counted`)).Scan(&n), "read the count")
	if n != len(s.People) {
		t.Fatalf("the trigger saw %d people; want %d", n, len(s.People))
	}

	schema := testSchema(t, cs)
	role := schema + "_role"
	var db string
	mustNoErr(t, c.QueryRow(ctx, `SELECT current_database()`).Scan(&db), "name the database")
	_, err = c.Exec(ctx, `CREATE ROLE `+role+` LOGIN NOSUPERUSER; CREATE SCHEMA `+schema+` AUTHORIZATION `+role+`;
		GRANT CREATE ON DATABASE `+pgx.Identifier{db}.Sanitize()+` TO `+role)
	mustNoErr(t, err, "make a role")
	t.Cleanup(func() {
		c, err := connect(ctx, cs)
		mustNoErr(t, err, "connect")
		defer c.Close(ctx)
		_, err = c.Exec(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE; DROP OWNED BY `+role+`; DROP ROLE `+role)
		mustNoErr(t, err, "drop the role")
	})
	u, err := url.Parse(cs)
	mustNoErr(t, err, "read the connection string")
	u.User = url.User(role)
	push(newPG(t, u.String(), schema, "", alice), false, true)
	other := newPG(t, u.String(), schema, "", alice)
	mustNoErr(t, other.CreateWorkspace("other"), "make another workspace")
	push(other, false, false)
}
