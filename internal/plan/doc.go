// Package plan turns a configuration and a state into a plan: an action per
// address, with calls and credits (certain and at most), the duration at the
// rate limit and the quota check. It also owns saved plan files and the
// rules by which the people to enrich are chosen (enrich.go): the plan
// counts with them, and apply chooses with them through
// Candidates.Claimed, so that plan and apply cannot disagree. Whether each spreadsheet is written
// is decided here too, from what the caller passes in Options: whether its
// files exist, and the working copy's record of its last write (which
// configuration and which state it was written from). A track change
// (track.go) lists exactly the people it reads; the enrichments again that
// their reads may cause (refresh_on) are bounded in the enrich changes;
// refresh_on also takes the people a block enriched who have left its
// sources (collectFormer), plan and apply alike. Moved blocks are
// resolved against the state here (Moves): the plan shows each move, and
// is made on the state as it will be once apply has recorded them. What
// a plan reads of a stored state is decided here too (reads.go, ReadsOf):
// for enrich blocks and tracks, the store's answers and packed sketches
// instead of every person (enrich_store.go, enrich_census.go,
// track_sketched.go).
//
// Spending only where it adds value is decided here too: the exclude
// blocks take people out of the candidates (exclude.go), imports give
// people an e-mail (imports.go), enrichments other workspaces hold are
// copied when they were made at the company the person works at now
// (reuse.go; a copy takes one of the block's places under its limit, the
// copies first, collect.go's placeCopies), and the budget is checked (budget.go); the plan says
// what each saves (savings.go), and apply chooses through the same rules
// (Candidates). Over a partial state, apply reads the people of the lead
// lists its plan never walked (a search's run failed, a place freed) as
// its claims may need them (every one, for a block with a where:
// readRunsWhere), so it chooses whom the whole state's apply would, and
// fails on the same person (enrich_partial.go).
//
// The addresses given with --target and --replace are checked before any
// call (CheckAddresses): an unknown one gets the nearest address, and a
// --replace the targets leave out is refused (replace.go). A plan below
// min_remaining_requests is refused with how to go on (quota.go).
//
// Build (build.go) calls one builder per block kind, each in its own file
// as config has them (search.go, profile.go, enrich_blocks.go with the
// bounds of enrich_bounds.go, track.go, imports.go), then the targets
// (targets.go), the forget changes of retention and removed blocks
// (forgets.go), the spreadsheets (exports.go), the totals (totals.go) and
// the quota (quota.go).
//
// It imports config, state, api, person (the person model), kind (the
// table of block kinds: a change's Kind) and address, listfile (company and domain keys), catalog
// (the nearest address to an unknown --target or --replace), version and
// recovered (a reader's panic raised again in the plan's goroutine);
// never engine, export or cli, and
// it makes no call: the caller passes the result of its one billing call,
// reads the export record and the budget's ledger, and gives the lookup of
// the other workspaces' enrichments.
package plan
