package pg

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/textfmt"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cs, text string }{
		{"postgres://u:s3cr%21t@db.example.com/leads", "dial postgres://u:s3cr%21t@db.example.com/leads failed; s3cr!t"},
		{"postgresql://u:hunter22@h/db", "postgresql://u:hunter22@h/db"},
		{"host=db user=u password=hunter22 dbname=x", "cannot parse `host=db user=u password=hunter22 dbname=x`"},
		{"host=db password='pa ss' dbname=x", "password='pa ss' failed"},
		{"postgres://u@h/db?password=qwerty123", "postgres://u@h/db?password=qwerty123"},
		// A reader that cut the password at its @ printed the rest as a host.
		{"postgres://u:hunter22@qwerty123@h/db", "lookup qwerty123@h: no such host"},
		// A password with @ and / cut by a reader: the long piece goes, a
		// short one ("a") is left rather than garbling every word.
		{"postgres://ann:a@qwerty123:w/rd@127.0.0.1:46369/leadsync_test", "cannot parse: postgres://ann:a@qwerty123:w/rd@127.0.0.1: invalid port"},
		{"postgres://u:qwerty123?x@h/db", "postgres://u:qwerty123?x@h/db"},
	} {
		got := redactString(tc.text, tc.cs)
		for _, secret := range []string{"s3cr", "hunter22", "pa ss", "qwerty123"} {
			if strings.Contains(got, secret) {
				t.Errorf("redact(%q) = %q: still has %q", tc.text, got, secret)
			}
		}
		if !strings.Contains(got, textfmt.Redacted) {
			t.Errorf("redact(%q) = %q: nothing redacted", tc.text, got)
		}
	}
	// Pieces shorter than 3 characters are not replaced: the words around
	// stay readable.
	cs := "postgres://ann:a@LEAKME:w/rd@127.0.0.1:46369/leadsync_test"
	if got := redactString("cannot parse the port", cs); got != "cannot parse the port" {
		t.Errorf("redact with password %q: %q", "a@LEAKME:w/rd", got)
	}
	if got := redactString("cannot parse", "postgres://u:ab@h/db"); got != "cannot parse" {
		t.Errorf("redact with password %q: %q", "ab", got)
	}
}

// A postgres:// URL whose user name or password holds an unencoded @ / ? #
// is refused before it is read, with a message naming no part of it.
func TestUnencodedUserInfo(t *testing.T) {
	t.Parallel()
	bad := []string{
		"postgres://ann:zz@LEAKME/rd@127.0.0.1:46369/leadsync_test",
		"postgres://ann:a@LEAKME:w/rd@127.0.0.1:46369/leadsync_test",
		"postgres://leaduser:Pg@LEAKME@127.0.0.1:1/leads",
		"postgresql://u:LEAKME/x@127.0.0.1/leads",
		"postgres://u:LEAKME?x@127.0.0.1/leads",
		"postgres://u:LEAKME#x@127.0.0.1/leads",
		"postgres://u:LEAKME?x/y@127.0.0.1/leads",
		"postgres://u:LEAKME#x/y@127.0.0.1/leads",
		"postgres://LEAKME?user=a@b",
		"postgres://u:p@LEAKME@h/db?sslmode=disable",
	}
	for _, cs := range bad {
		err := CheckConnStr(cs)
		if err == nil {
			t.Errorf("%s: accepted", cs)
			continue
		}
		if strings.Contains(err.Error(), "LEAKME") || !strings.Contains(err.Error(), "must be percent-encoded (%40 %2F %3F %23)") {
			t.Errorf("%s: %v", cs, err)
		}
		if _, err := New(Options{ConnStr: cs}); err == nil || strings.Contains(err.Error(), "LEAKME") {
			t.Errorf("New(%s): %v", cs, err)
		}
	}
	for _, cs := range []string{
		"postgres://u:p%40ss%2Fw%3Fx%23y@127.0.0.1:5432/leads",
		"postgres://u@127.0.0.1/leads?application_name=a@b",
		"postgres://127.0.0.1/leads?user=a@b",
		"postgres:///leads?host=/tmp&user=a@b",
		"postgres://u@[::1]:5432,127.0.0.1:5433/leads",
		"postgres://127.0.0.1/leads",
		"host=127.0.0.1 user=a@b password=x@y/z dbname=leads",
	} {
		if err := CheckConnStr(cs); err != nil {
			t.Errorf("%s: %v", cs, err)
		}
	}
}

// Errors from a failed connection never carry the password.
func TestConnectErrorRedacted(t *testing.T) {
	t.Parallel()
	for _, cs := range []string{
		"postgres://leaduser:TopSecret99@127.0.0.1:1/leads?connect_timeout=5",
		"host=127.0.0.1 port=1 user=leaduser password=TopSecret99 dbname=leads connect_timeout=5",
		"postgres://leaduser:TopSecret99@127.0.0.1:1/leads?sslmode=bogus",
		// An @ in the password, not percent-encoded: refused, no piece shown.
		"postgres://leaduser:Pg@TopSecret99@127.0.0.1:1/leads?sslmode=disable",
		"postgres://leaduser:TopSecret99@x@127.0.0.1:1/leads?sslmode=disable",
		// An @ and a / in the password: refused before any DNS lookup.
		"postgres://leaduser:zz@TopSecret99/rd@127.0.0.1:1/leads?sslmode=disable",
		"postgres://leaduser:a@TopSecret99:w/rd@127.0.0.1:1/leads?sslmode=disable",
	} {
		b, err := New(Options{ConnStr: cs})
		if err == nil {
			_, err = b.Load()
		}
		if err == nil {
			t.Fatalf("%s: no error", cs)
		}
		if strings.Contains(err.Error(), "TopSecret99") {
			t.Errorf("error leaks the password: %v", err)
		}
		if strings.Contains(err.Error(), textfmt.Redacted) && strings.Count(cs, "@") > 1 {
			t.Errorf("%s: refused late (after a reader cut it): %v", cs, err)
		}
		if strings.Count(cs, "@") > 1 && !strings.Contains(err.Error(), "%40") {
			t.Errorf("%s: the error should say to write @ as %%40: %v", cs, err)
		}
	}
	if c, err := connect(context.Background(), "postgres://u:TopSecret99@127.0.0.1:1/x?connect_timeout=5"); err == nil {
		c.Close(context.Background())
	} else if strings.Contains(err.Error(), "TopSecret99") {
		t.Errorf("connect error leaks the password: %v", err)
	}
}

func TestDefaultTLS(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGHOST", "")
	for cs, want := range map[string]string{
		"postgres://u@db.example.com/leads":                 "postgres://u@db.example.com/leads?sslmode=verify-full",
		"postgres://u@db.example.com:5433/leads?x=1":        "postgres://u@db.example.com:5433/leads?x=1&sslmode=verify-full",
		"postgres://u@db.example.com/leads?sslmode=disable": "postgres://u@db.example.com/leads?sslmode=disable",
		"postgres://u@127.0.0.1:5432/leads":                 "postgres://u@127.0.0.1:5432/leads",
		"postgres://u@localhost/leads":                      "postgres://u@localhost/leads",
		"postgres://u@[::1]:5432/leads":                     "postgres://u@[::1]:5432/leads",
		"host=db.example.com dbname=leads":                  "host=db.example.com dbname=leads sslmode=verify-full",
		"host=/var/run/postgresql dbname=leads":             "host=/var/run/postgresql dbname=leads",
		"host=10.0.0.5 sslmode=require":                     "host=10.0.0.5 sslmode=require",
	} {
		if got := withDefaultTLS(cs); got != want {
			t.Errorf("withDefaultTLS(%q) = %q, want %q", cs, got, want)
		}
	}
	cfg, err := parseConfig("postgres://u@db.example.com/leads")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLSConfig == nil || cfg.TLSConfig.InsecureSkipVerify {
		t.Fatalf("remote host without sslmode: TLS %+v", cfg.TLSConfig)
	}
	for _, fb := range cfg.Fallbacks {
		if fb.TLSConfig == nil {
			t.Fatal("remote host without sslmode falls back to plain text")
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"default", "uk", "dach-2026", "a.b_c"} {
		if err := CheckWorkspaceName(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", "a b", "a/b", strings.Repeat("x", 65)} {
		if err := CheckWorkspaceName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"", "Leadsync", "1x", `x"; drop`, "pg-state"} {
		if err := CheckSchemaName(bad); err == nil {
			t.Errorf("schema %q accepted", bad)
		}
	}
}

// Every postgres:// URL CheckConnStr accepts is read alike by pgx and by
// Go's URL reader (which finds the hosts that get TLS by default and the
// password to redact): the same user and password.
func FuzzConnStr(f *testing.F) {
	for _, s := range []string{
		"postgres://ann:zz@h/rd@127.0.0.1:46369/leadsync_test",
		"postgres://u:p%40ss@127.0.0.1/leads",
		"postgres://u:p?x@h/db",
		"postgres://h/db?user=a@b",
		"postgres://u:a@b@h/db",
		"postgresql://u@[::1]:5432/db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cs string) {
		redactString(cs, cs)
		if !isURL(cs) || CheckConnStr(cs) != nil {
			return
		}
		u, err := url.Parse(cs)
		if err != nil || strings.Contains(u.RawQuery, " ") {
			// A space in the query (not valid in a URL) is read apart: pgx
			// trims it from a key (" user" is its user), Go keeps it.
			return
		}
		cfg, err := parseConfig(cs)
		if err != nil {
			return
		}
		pw, _ := u.User.Password()
		if q := u.Query().Get("password"); q != "" && pw == "" {
			return
		}
		user := u.User.Username()
		if q := u.Query(); q.Has("user") {
			// The query's user wins in pgx, even an empty one; leadsync
			// shows pgx's (describe) and takes only the password from Go.
			user = q.Get("user")
		}
		if u.User != nil && (user != cfg.User && user != "" || pw != cfg.Password) {
			t.Fatalf("%q: Go reads user %q password %q, pgx %q %q", cs, user, pw, cfg.User, cfg.Password)
		}
	})
}

// TestWrapSaysWhatOnce: an error wrapped deeper down (what a transaction's
// statement was doing) keeps its words when the operation around it wraps
// it again, its password removed, and errors.Is still finds its cause.
func TestWrapSaysWhatOnce(t *testing.T) {
	t.Parallel()
	b, err := New(Options{ConnStr: "postgres://u:hunter22@127.0.0.1/db"})
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("connection reset; password hunter22")
	got := b.wrap("committing", b.wrap("recording the erasure", cause))
	want := `PostgreSQL, workspace "default" in PostgreSQL (schema leadsync), recording the erasure: connection reset; password ` + textfmt.Redacted
	if got.Error() != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !errors.Is(got, cause) {
		t.Errorf("errors.Is lost the cause: %v", got)
	}
	if b.wrap("committing", nil) != nil {
		t.Error("wrap(nil) is not nil")
	}
}
