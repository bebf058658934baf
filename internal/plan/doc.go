// Package plan turns a configuration and a state into a plan: an action per
// address, with calls and credits (certain and at most), the duration at the
// rate limit and the quota check. It imports config, state, api and catalog.
package plan
