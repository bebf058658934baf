// Package engine runs a plan: it schedules calls through the api pacer, records
// each completed call in the state journal before using it, honours where,
// limit, max_credits, the exclude blocks and the budget at run time, records
// the plan's imports before any call and copies the enrichments other
// workspaces hold before paying for them (plan.Candidates), and reports
// progress through an interface. Track reads (track.go) are profile reads of
// the people a track change lists; what the run saw change (job changes,
// people gone or private) comes back from each fold (state.LastDrifts) into
// the summary. Each enrichment is claimed across the workspaces before it
// is sent and released once its outcome is recorded (claims.go,
// Options.Claims): a person another workspace's running apply holds is
// waited for and copied once recorded there, or left for the next apply.
// The runner's work is in parts: Run and prepare (engine.go), the
// scheduler that queues, dispatches and stops calls (scheduler.go), the
// writes of each outcome to the state (writes.go, through record.go), and
// the accounting of refunds and of the summary (accounting.go, with the
// budget's ledger in budget.go); the runner's fields are grouped the same
// way (schedule, accounts).
// It imports plan, config, state and api, the leaf kind (a call's
// Kind is the kind of the block that makes it) and the leaf recovered (a
// worker's panic is its outcome's error, which stops the run as a
// journal's failure does: the calls in flight are recorded, a call whose
// answer the panic lost fails with an unknown outcome, and Run returns
// the panic); the budget's ledger, the claims
// and the other workspaces come in through Options.
//
// No call is sent while a result is being written (the start hook of a
// call takes the lock the recording holds, record.go), so that a journal
// which tries a failed write again for a while spends nothing meanwhile.
// The same start hook tells the budget's ledger that the call is about to
// be sent (budget.go): until then the run only holds its reservation, which
// the next command gives back should the run die.
// The same hook checks the exclude blocks again (plan.Candidates.
// ExcludedNow): a company domain learned from an enrichment folded in while
// a colleague's call waited for the rate limit keeps that call from being
// sent (the chooser learns under the lock, as each event is folded in).
// A journal that cannot write a result but keeps it elsewhere (run's
// rescue file) says so in its error: the result counts as recorded and
// done, and the run stops (Summary.Kept); a result kept nowhere is a
// failure that carries the answer (Failure.Answer), shown at once through
// AnswerProgress.
package engine
