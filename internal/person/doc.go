// Package person is the person model: what the service gives about a
// person (a search result's Lead, a profile read's Profile, an
// enrichment's EnrichedProfile, the e-mail statuses) and the one table of
// person fields (PersonFields, fields.go), with how each field is reached
// in those answers, kept in the state and in the pg backend, merged, shown
// in the spreadsheets and matched in a where. Every place that lists
// person fields reads that table, so a new field of the service is a
// field of its struct and one row (with its label).
//
// The HTTP client (internal/api) decodes the service's answers into these
// types; the state, its codec, the backends, the exports and the views
// read them without importing the client. The client's wire types
// (requests, raw results, usage, errors) stay in api.
//
// It is a leaf: it imports only the standard library
// (TestPersonIsALeaf in e2e keeps it so).
package person
