// Package config reads *.leads.hcl files (and variable values) into a
// validated, typed Config, reporting every problem as an hcl.Diagnostic with
// a source range. Modules (module_call.go, output.go) are read into the same
// flat Config, every address they declare prefixed with their module path;
// ConsoleScope (console.go) is the root module's evaluation context for
// leadsync console, with search.NAME and profile.NAME as their instances;
// moved blocks (moved.go) are checked here and resolved against a state by
// plan (MoveSet). It makes no calls and imports only catalog, api (types),
// person (the table of person fields: columns, labels, where),
// the leaves textfmt, address (the grammar of addresses), kind (the table
// of block kinds: what moves, has instances, how each is worded; its own
// part of each kind is blockKinds, kinds.go) and exportformat
// (the extensions an export path may end in, and the files of each
// format's layout; never export itself), and
// the backend registry (internal/state/backend): a backend block is kept
// generic, its schema and checks asked of the registry. Exclude and import
// blocks read their list files through listfile (a leaf) at load time, so
// that a broken list is a diagnostic with its file:row before any call; an
// import's people become a state event (Import.Event), which is why it
// imports state (the model). It must not import any backend
// (internal/state/local, internal/state/pg) nor the state's codec.
package config
