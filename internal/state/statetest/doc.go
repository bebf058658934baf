// Package statetest holds the events and states the tests of the state's
// codec, backends and conformance suite share: leads, events of every
// kind, a state of awkward values (OddState) and a big one (BigState),
// comparison options and a CPU-time metric for benchmarks. It is imported
// by tests only (and backendtest).
//
// It imports state, person and api; it must not import a backend or the
// codec, so that their own tests can use it.
package statetest
