// Package backend is the seam between leadsync and the places a state can
// live. It holds what every backend implements (Backend, Unlocker,
// Recorder, and a refused lock that names its holder), the optional
// abilities a backend may have (abilities.go: each a small interface,
// asked for in one function, of the backend or of the one a layer wraps;
// the larger ones that span workspaces in files of their own: ledger.go,
// the budget's ledger, and claims.go, the people an apply is paying for
// right now), the workspace rules every backend shares,
// and the registry (registry.go): a backend registers its name, its HCL
// block's schema, its checks and its opener, and the rest of leadsync
// asks the registry, never which kind of backend it has.
//
// It imports state (the model), api (the shared pace), recovered (a
// push source's panic as an error) and hcl; it must not
// import any backend (internal/state/local, internal/state/pg), so that
// config can ask the registry without pulling one in. The backends
// themselves are registered by internal/state/backend/builtin.
package backend
