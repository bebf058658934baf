// Package sandbox is an in-process stand-in of the lead service, both
// generations, as an http.Handler: a deterministic synthetic population, the
// spec's rules enforced (key, rate limit, input checks, quota, credits),
// knobs for latency and faults, and a population that drifts over epochs
// (drift.go: people change jobs, leave, turn private) with its ground
// truth. Server.Transport reaches it without a listener (api { sandbox =
// true }); `leadsync sandbox` serves it over HTTP.
//
// It owns the sandbox's behaviour where the spec is silent (error bodies,
// what counts against the quota, raw in generation 2); docs/sandbox.md
// lists those choices. Its defaults and its faults (their type, checks and
// the NAME=VALUE spelling of --faults) are in the leaf knobs, which the
// command line's parser reads without the sandbox. It imports only api
// (wire types), person (the person model it sends), knobs, textfmt and
// recovered (the population's panic raised in the caller),
// and never
// config, plan, engine, state or export.
package sandbox
