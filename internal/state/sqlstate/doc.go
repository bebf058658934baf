// Package sqlstate is the relational model of a workspace's state that
// both SQL engines share: the PostgreSQL backend (internal/state/pg, over
// pgx) and the local SQLite database (internal/state/local, over
// database/sql and modernc.org/sqlite). It holds the tables' columns and
// how a state's values become a row's (model.go), the queries, written
// once in PostgreSQL's spelling ($1, {s}. for the schema) and turned into
// the other engine's by a small Dialect (dialect.go), the SQLite schema
// (schema.go, the same tables and columns as pg's schema version 8, minus
// the tables that stay files on the local backend this version: locks,
// pace, ledger, erasures, claims; plus, since SQLite schema 6, the
// numbered addresses of found_by, since 7 the workspace's count of
// their changes, and since 8 the enrichments' and histories' addresses
// numbered too, addrs.go), and the reading and writing
// of a state over database/sql (read.go, write.go, bulk.go). Reader.People
// is the store of a state.Base: it answers the Base's questions from the
// indexes (enrichindex.go, censussketch.go, tracksketch.go, values.go),
// lead lists packed (lists_packed.go), and the keys and enrichments of
// the people another workspace asks about (keyedenrich.go), without
// reading every person.
//
// A query a command needs later (the searches due, an enrich block's
// candidates) goes into queries.go, beside an index in both schemas when
// it needs one, so that both engines answer it.
//
// It imports state (the model), person (the person's fields) and api (a
// search's generation); it must not import a backend.
package sqlstate
