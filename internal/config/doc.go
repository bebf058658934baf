// Package config reads *.leads.hcl files (and variable values) into a
// validated, typed Config, reporting every problem as an hcl.Diagnostic with
// a source range. It makes no calls and imports only catalog and api (types),
// and the leaves textfmt and exportformat (the extensions an export path may
// end in, and the files of each format's layout; never export itself).
package config
