// Package config reads *.leads.hcl files (and variable values) into a
// validated, typed Config, reporting every problem as an hcl.Diagnostic with
// a source range. It makes no calls and imports only catalog and api (types).
package config
