// Package engine runs a plan: it schedules calls through the api pacer, records
// each completed call in the state journal before using it, honours where,
// limit and max_credits at run time, and reports progress through an
// interface. Track reads (track.go) are profile reads of the people a
// track change lists; what the run saw change (job changes, people gone or
// private) comes back from each fold (state.LastDrifts) into the summary.
// It imports plan, config, state and api.
package engine
