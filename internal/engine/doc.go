// Package engine runs a plan: it schedules calls through the api pacer, records
// each completed call in the state journal before using it, honours where,
// limit, max_credits, the exclude blocks and the budget at run time, records
// the plan's imports before any call and copies the enrichments other
// workspaces hold before paying for them (plan.Candidates), and reports
// progress through an interface. It imports plan, config, state and api;
// the budget's ledger and the other workspaces come in through Options.
package engine
