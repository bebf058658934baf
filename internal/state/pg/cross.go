package pg

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// The workspaces of a schema share one team's API account: the
// backend.CrossWorkspace ability (reuse of enrichments, erasure in every
// workspace).

var _ backend.CrossWorkspace = (*Backend)(nil)

// OtherWorkspaces lists the schema's workspaces besides this one.
func (b *Backend) OtherWorkspaces() ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	c, err := b.c(ctx)
	if err != nil {
		return nil, err
	}
	v, err := b.checkedVersion(ctx, c)
	if err != nil || v == 0 {
		return nil, err
	}
	rows, err := c.Query(ctx, b.sql(`SELECT name FROM {s}.workspaces WHERE name <> $1 ORDER BY name`), b.workspace)
	if err != nil {
		return nil, b.wrap("listing the workspaces", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, b.wrap("listing the workspaces", err)
		}
		out = append(out, n)
	}
	return out, b.wrap("listing the workspaces", rows.Err())
}

// Sibling opens workspace name of the same schema, on connections of its
// own (Close them).
func (b *Backend) Sibling(name string) (backend.Backend, error) {
	o := b.opts
	o.Workspace = name
	return New(o)
}

// EnrichmentsElsewhere returns, per key asked for, the newest enrichment
// another workspace of the schema holds of that person: one query over
// the people found by network ID or page name (lower case).
func (b *Backend) EnrichmentsElsewhere(keys []string) (map[string]state.Reusable, error) {
	out := map[string]state.Reusable{}
	var nids, pages []string
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "n:"):
			nids = append(nids, k[2:])
		case strings.HasPrefix(k, "p:"):
			pages = append(pages, k[2:])
		}
	}
	if len(nids)+len(pages) == 0 {
		return out, nil
	}
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	c, err := b.c(ctx)
	if err != nil {
		return nil, err
	}
	if v, err := b.checkedVersion(ctx, c); err != nil || v == 0 {
		return out, err
	}
	rows, err := c.Query(ctx, b.sql(`SELECT p.workspace, p.id, p.network_id, p.page_name,
		e.enriched_at, e.by_address, e.result_id, e.page_name, e.first_name, e.last_name, e.full_name, e.title, e.location,
		e.previous_title, e.company, e.network_id, e.profile_img_url, e.email, e.validation_status, e.company_domain, e.credit_balance, e.extra
		FROM {s}.people p JOIN {s}.enrichments e ON e.workspace = p.workspace AND e.person_id = p.id
		WHERE p.workspace <> $1 AND (p.network_id = ANY($2) OR p.id = ANY($2) OR lower(p.page_name) = ANY($3))`),
		b.workspace, nids, pages)
	if err != nil {
		return nil, b.wrap("reading the enrichments of the other workspaces", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ws, id, nid, page string
		var at pgtype.Timestamptz
		var extra []byte
		e := state.Enrichment{}
		r := &e.Result
		if err := rows.Scan(&ws, &id, &nid, &page, &at, &e.By, &r.ID, &r.PageName, &r.FirstName, &r.LastName, &r.FullName, &r.Title, &r.Location,
			&r.PreviousTitle, &r.Company, &r.NetworkID, &r.ProfileImgURL, &r.Email, &r.ValidationStatus, &r.CompanyDomain, &r.CreditBalance, &extra); err != nil {
			return nil, b.wrap("reading the enrichments of the other workspaces", err)
		}
		e.EnrichedAt = tsUTC(at)
		if err := enrichmentExtra.decode(extra, &e); err != nil {
			return nil, fmt.Errorf("the enrichment of %s in workspace %q: %w", id, ws, err)
		}
		from := ws
		if rf := e.ReusedFrom(); rf != "" {
			from = rf
		}
		p := &state.Person{ID: id, Lead: api.Lead{NetworkID: nid, PageName: page}}
		for _, k := range state.LookupKeys(p) {
			if !want[k] {
				continue
			}
			if cur, ok := out[k]; !ok || e.EnrichedAt.After(cur.Enrichment.EnrichedAt) {
				out[k] = state.Reusable{Workspace: from, Enrichment: e}
			}
		}
	}
	return out, b.wrap("reading the enrichments of the other workspaces", rows.Err())
}
