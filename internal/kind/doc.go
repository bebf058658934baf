// Package kind is the one table of the kinds of things an address names:
// the blocks of a configuration (search, profile, import, enrich, track,
// export, exclude), a person of the state (person.<id>) and the people as
// a whole of a plan (people). Each row says what the kind is: whether the
// state holds records at its addresses, whether a moved block or state mv
// moves them, whether its blocks have instances, and the words state rm,
// state show and --replace use for it. Every stage reads the table instead
// of switching on names; a new block kind is one row here plus its
// per-stage files, and the tests of each stage fail while one lacks it.
//
// It imports only the standard library, as exportformat and textfmt: config,
// address, plan, state, run and views all read it, and none of them may
// import another to learn a kind.
package kind
