// Package config reads *.leads.hcl files (and variable values) into a
// validated, typed Config, reporting every problem as an hcl.Diagnostic with
// a source range. It makes no calls and imports only catalog, api (types)
// and the backend registry (internal/state/backend): a backend block is
// kept generic, its schema and checks asked of the registry. It must not
// import any backend (internal/state/local, internal/state/pg) nor the
// state's codec.
package config
