// Package state owns what leadsync knows was fetched: the state file
// (atomic, 0600, format_version/lineage/serial), the journal that records
// each completed call during apply, and the lock. It imports only api.
package state
