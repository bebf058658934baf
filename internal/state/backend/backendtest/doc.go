// Package backendtest is the conformance suite every state backend runs
// from its own tests (terraform's statemgr.TestFull): Run checks, on fresh
// stores, that a state round-trips (every field the fixture sets), that an
// apply killed after any call loses none of its completed calls and leaves
// a lock the next run takes at once, that a lock held is refused naming
// its holder and waited for, that reads during an apply see a consistent
// state, and, for a backend with those abilities, workspaces and push/pull.
// It also checks that a store answers a state.Base's questions (the index
// of enrichments, the sketches, packed lead lists) as the state read whole
// does, and that a partial state folds, guards and commits as a whole one.
//
// It imports state, statefile (state pull), backend,
// statetest and go-cmp; it is imported by tests only, and must not import
// a backend.
package backendtest
