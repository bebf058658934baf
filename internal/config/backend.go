package config

import (
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/state/pg"
)

var pgBackendSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "conn_str"}, {Name: "schema_name"},
}}

// decodeBackend reads a backend "pg" block.
func (l *loader) decodeBackend(blocks hcl.Blocks) {
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate backend block", "There is already a backend block at %s; a configuration has one state backend.", shortRange(blocks[0].DefRange))
			continue
		}
		if b.Labels[0] != "pg" {
			l.errorf(b.LabelRanges[0].Ptr(), "Unsupported backend", "The backend %q is not supported; use backend \"pg\" (PostgreSQL), or remove the block for the local state file.", b.Labels[0])
			continue
		}
		be := &Backend{Type: "pg", SchemaName: pg.DefaultSchema, DeclRange: b.DefRange}
		content, ds := b.Body.Content(pgBackendSchema)
		l.add(ds)
		if a := content.Attributes["conn_str"]; a != nil {
			literal := len(a.Expr.Variables()) == 0
			if literal {
				l.secretRange(a.Expr)
			}
			if s, sens, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
				l.secrets[s] = true
				if err := pg.CheckConnStr(s); err != nil {
					l.errorf(a.Expr.Range().Ptr(), "Invalid conn_str", "%s. Give a PostgreSQL URL like \"postgres://user@db.example.com/leads\" or key=value pairs like \"host=db.example.com dbname=leads\".", err)
				} else {
					be.ConnStr = s
				}
				hasPassword := strings.Contains(strings.ToLower(s), "password") || regexpURLPassword.MatchString(s)
				if literal && hasPassword {
					l.warnf(a.NameRange.Ptr(), "Database password written in the configuration",
						"Anyone who can read these files can use the database. Leave conn_str out and set LEADSYNC_PG_CONN_STR, or use a variable with sensitive = true given with LEADSYNC_VAR_<name>.")
				} else if !literal && !sens && hasPassword {
					l.warnf(a.Expr.Range().Ptr(), "Connection string from a variable that is not sensitive",
						"Mark the variable with sensitive = true so that its value never appears in output.")
				}
			}
			be.ConnStrRange = a.Expr.Range().Ptr()
		}
		if content.Attributes["conn_str"] == nil {
			l.checkEnvConnStr()
		}
		if a := content.Attributes["schema_name"]; a != nil {
			if s, _, astate := l.stringAttr(a, l.base, scope{}, true); astate == ok {
				if err := pg.CheckSchemaName(s); err != nil {
					l.errorf(a.Expr.Range().Ptr(), "Invalid schema_name", "%s.", err)
				} else {
					be.SchemaName = s
				}
			}
		}
		l.cfg.Settings.Backend = be
	}
}

// checkEnvConnStr checks the form of LEADSYNC_PG_CONN_STR, the connection
// string of a backend "pg" block without conn_str, when it is set (without
// connecting: validate is offline). Unset, the command that opens the
// state says so.
func (l *loader) checkEnvConnStr() {
	s := envValue(l.opts.Environ, EnvPGConnStr)
	if s == "" {
		return
	}
	l.secrets[s] = true
	if err := pg.CheckConnStr(s); err != nil {
		l.errorf(nil, "Invalid "+EnvPGConnStr, "The backend \"pg\" block has no conn_str, so the connection string comes from the environment variable %s: %s. Give a PostgreSQL URL like \"postgres://user@db.example.com/leads\" or key=value pairs like \"host=db.example.com dbname=leads\".", EnvPGConnStr, err)
	}
}

// envValue is the value of the variable name in environ (os.Environ form;
// the first wins, as with os.Getenv), "" when unset.
func envValue(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// regexpURLPassword finds the password of a postgres:// URL.
var regexpURLPassword = regexp.MustCompile(`^postgres(ql)?://[^:/@\s]*:[^@\s]+@`)
