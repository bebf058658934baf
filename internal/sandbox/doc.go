// Package sandbox is an in-process stand-in of the lead service, both
// generations, as an http.Handler: a deterministic synthetic population, the
// spec's rules enforced (key, rate limit, input checks), and knobs for
// latency and faults. It imports only api (types).
package sandbox
