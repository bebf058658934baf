package pg

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// EnvConnStr gives the connection string when the backend "pg" block has
// no conn_str.
const EnvConnStr = "LEADSYNC_PG_CONN_STR"

// Definition registers the pg backend: backend "pg" { conn_str, schema_name }.
var Definition = &backend.Definition{
	Name:  "pg",
	Title: "PostgreSQL",
	Schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "conn_str"}, {Name: "schema_name"},
	}},
	Secrets:    []string{"conn_str"},
	EnvSecrets: []string{EnvConnStr},
	Check:      check,
	Open:       open,
}

// connStrHint says what a connection string looks like.
const connStrHint = `Give a PostgreSQL URL like "postgres://user@db.example.com/leads" or key=value pairs like "host=db.example.com dbname=leads".`

// check checks a backend "pg" block without connecting: the form of the
// connection string (conn_str, or LEADSYNC_PG_CONN_STR when the block has
// none and it is set; unset, the command that opens the state says so), a
// password written where others read it, and the schema name.
func check(b *backend.Block, getenv func(string) string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	errorf := func(rng *hcl.Range, summary, format string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng})
	}
	warnf := func(rng *hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: rng})
	}
	if a := b.Attrs["conn_str"]; a == nil {
		if s := getenv(EnvConnStr); s != "" {
			if err := CheckConnStr(s); err != nil {
				errorf(nil, "Invalid "+EnvConnStr, "The backend \"pg\" block has no conn_str, so the connection string comes from the environment variable %s: %s. %s", EnvConnStr, err, connStrHint)
			}
		}
	} else if a.Known {
		if err := CheckConnStr(a.Value); err != nil {
			errorf(a.Range.Ptr(), "Invalid conn_str", "%s. %s", err, connStrHint)
		}
		hasPassword := strings.Contains(strings.ToLower(a.Value), "password") || urlPasswordRe.MatchString(a.Value)
		switch {
		case a.Literal && hasPassword:
			warnf(a.NameRange.Ptr(), "Database password written in the configuration",
				"Anyone who can read these files can use the database. Leave conn_str out and set "+EnvConnStr+", or use a variable with sensitive = true given with LEADSYNC_VAR_<name>.")
		case !a.Literal && !a.Sensitive && hasPassword:
			warnf(a.Range.Ptr(), "Connection string from a variable that is not sensitive",
				"Mark the variable with sensitive = true so that its value never appears in output.")
		}
	}
	if a := b.Attrs["schema_name"]; a != nil && a.Known {
		if err := CheckSchemaName(a.Value); err != nil {
			errorf(a.Range.Ptr(), "Invalid schema_name", "%s.", err)
		}
	}
	return diags
}

// urlPasswordRe finds the password of a postgres:// URL.
var urlPasswordRe = regexp.MustCompile(`^postgres(ql)?://[^:/@\s]*:[^@\s]+@`)

// open returns the backend of a backend "pg" block on the workspace o
// names. Nothing is connected yet; an error names the setting it is about
// (conn_str's file:line, or LEADSYNC_PG_CONN_STR).
func open(b *backend.Block, o backend.Options) (backend.Backend, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	connStr := b.Value("conn_str")
	where := b.Where("conn_str", o.Dir)
	if connStr == "" {
		connStr = getenv(EnvConnStr)
		if connStr == "" {
			return nil, fmt.Errorf("%s: the backend \"pg\" block has no conn_str and %s is not set; set %s to the database's connection string (like postgres://user@db.example.com/leads), as a secret in CI",
				where, EnvConnStr, EnvConnStr)
		}
		where = EnvConnStr
	}
	be, err := New(Options{ConnStr: connStr, Schema: b.Value("schema_name"), Workspace: o.Workspace, Now: o.Now})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	return be, nil
}

// SharedPace is the pace of key in the database (every teammate's runs in
// any workspace and folder wait for one another): the backend.SharedPacer
// ability.
func (b *Backend) SharedPace(key string) (api.SharedPace, error) {
	return NewPace(b.opts, key)
}

var (
	_ backend.Closer      = (*Backend)(nil)
	_ backend.Workspaced  = (*Backend)(nil)
	_ backend.Workspaces  = (*Backend)(nil)
	_ backend.Pusher      = (*Backend)(nil)
	_ backend.LockReader  = (*Backend)(nil)
	_ backend.SharedPacer = (*Backend)(nil)
	_ backend.LockedError = (*LockedError)(nil)
)
