// Package catalog owns the searchable-field catalog: the spec's list embedded
// as the default, and a live copy cached in .leadsync/fields.json that
// replaces it. It maps service parameter names to configuration attribute
// names (snake_case) and suggests the nearest valid values.
package catalog
