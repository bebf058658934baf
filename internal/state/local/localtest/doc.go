// Package localtest holds what the tests of the local backend and of its
// neighbours (pg's push from a local database) share about the SQLite
// state database. That is the SQL that takes a database written by this
// build back to an older schema version. A test can then push or
// migrate from what an older leadsync left.
//
// InterruptedAtSchema7 leaves such a database holding the calls of an
// interrupted apply (backendtest.Interrupted).
//
// It imports database/sql, the modernc.org/sqlite driver, state, backend
// and backendtest; it is imported by tests only, and must not import local
// (local's own tests use it).
package localtest
