// Package engine runs a plan: it schedules calls through the api pacer, records
// each completed call in the state journal before using it, honours where,
// limit and max_credits at run time, and reports progress through an
// interface. It imports plan, config, state and api.
package engine
