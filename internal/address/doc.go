// Package address reads, compares and writes the addresses of leadsync:
// search.cto, search.cto["Berlin"], profile.founder, enrich.contacts,
// export.marketing, and the same inside modules, prefixed by the path of
// module calls that declares them (module.dach.search.cto["Berlin"],
// module.dach["de"].module.team.profile.cto). config makes them, state keys
// its records by them, plan, export and cli read them back.
//
// Addresses are kept as strings everywhere (state, plans, journals); this
// package is the one place that knows their grammar, so that nothing else
// cuts them at a '.' or a '[' by hand. The kind of an address is a
// kind.Kind, a row of the one table of kinds (internal/kind). It imports
// nothing else of leadsync, so any package may import it without breaking
// the one-way flow config -> plan -> engine -> state -> export.
package address
