package pg

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
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
// another workspace of the schema holds of that person: in its rows (the
// people found by network ID or page name, lower case), or recorded by an
// apply that runs there now (or was killed) and not yet written into them
// (its calls in the events table). Both are read in one snapshot, so that
// an apply ending meanwhile hides nothing.
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
	err := b.elsewhereSnapshot(func(ctx context.Context, tx pgx.Tx) error {
		if err := b.enrichmentRows(ctx, tx, nids, pages, want, out); err != nil {
			return err
		}
		return b.enrichmentEvents(ctx, tx, want, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// elsewhereSnapshot runs read in one read-only, repeatable-read
// transaction, so that the other workspaces' rows and the events of an
// apply running there are read as of one moment; not on a schema not
// made yet.
func (b *Backend) elsewhereSnapshot(read func(context.Context, pgx.Tx) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	c, err := b.c(ctx)
	if err != nil {
		return err
	}
	if v, err := b.checkedVersion(ctx, c); err != nil || v == 0 {
		return err
	}
	const doing = "reading the enrichments of the other workspaces"
	tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return b.wrap(doing, err)
	}
	defer tx.Rollback(ctx)
	if err := read(ctx, tx); err != nil {
		return b.wrap(doing, err)
	}
	return nil
}

// offer adds the enrichment e of person p, held in workspace ws, to out
// for each of p's keys asked for (every key for a nil want), where newer
// than what out holds. One copied there from a third workspace is named
// by the workspace that paid.
func offer(out map[string]state.Reusable, want map[string]bool, p *state.Person, ws string, e state.Enrichment) {
	from := ws
	if rf := e.ReusedFrom(); rf != "" {
		from = rf
	}
	for _, k := range state.LookupKeys(p) {
		if want != nil && !want[k] {
			continue
		}
		if cur, ok := out[k]; !ok || e.EnrichedAt.After(cur.Enrichment.EnrichedAt) {
			out[k] = state.Reusable{Workspace: from, Enrichment: e}
		}
	}
}

// enrichmentRows offers the enrichments the other workspaces' rows hold.
// The result's columns are resultCols, as readEnrichments reads them: the
// rows of person.PersonFields that name one.
func (b *Backend) enrichmentRows(ctx context.Context, tx pgx.Tx, nids, pages []string, want map[string]bool, out map[string]state.Reusable) error {
	rows, err := tx.Query(ctx, b.sql(`SELECT p.workspace, p.id, p.network_id, p.page_name,
		e.enriched_at, `+sqlstate.NameOf("e.workspace", "e.by_n")+`, `+sqlstate.NameOf("e.workspace", "e.copied_n")+`, e.`+strings.Join(fieldColumns(resultCols), ", e.")+`, e.extra
		FROM {s}.people p JOIN {s}.enrichments e ON e.workspace = p.workspace AND e.person_id = p.id
		WHERE p.workspace <> $1 AND (p.network_id = ANY($2) OR p.id = ANY($2) OR lower(p.page_name) = ANY($3))`),
		b.workspace, nids, pages)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ws, id, nid, page string
		var at pgtype.Timestamptz
		var extra []byte
		var copied pgtype.Text
		e := state.Enrichment{}
		scan := append([]any{&ws, &id, &nid, &page, &at, &e.By, &copied}, resultTargets(&e.Result)...)
		if err := rows.Scan(append(scan, &extra)...); err != nil {
			return err
		}
		e.EnrichedAt = tsUTC(at)
		if err := enrichmentExtra.Decode(extra, &e); err != nil {
			return fmt.Errorf("the enrichment of %s in workspace %q: %w", id, ws, err)
		}
		e.CopiedBy = copied.String
		offer(out, want, &state.Person{ID: id, Lead: person.Lead{NetworkID: nid, PageName: page}}, ws, e)
	}
	return rows.Err()
}

// enrichmentEvents offers the enrichments recorded in the other
// workspaces by applies whose calls are not written into the rows yet
// (each call's transaction writes the rows the calls before it changed):
// an enrichment, or a copy, made as the person's lead is known there.
func (b *Backend) enrichmentEvents(ctx context.Context, tx pgx.Tx, want map[string]bool, out map[string]state.Reusable) error {
	rows, err := tx.Query(ctx, b.sql(`SELECT ev.workspace, ev.event, coalesce(p.network_id, ''), coalesce(p.page_name, '')
		FROM {s}.events ev LEFT JOIN {s}.people p ON p.workspace = ev.workspace
			AND p.id = coalesce(ev.event->'enrich'->>'person_id', ev.event->'reuse'->>'person_id')
		WHERE ev.workspace <> $1 AND ev.kind IN ('enrich', 'reuse') ORDER BY ev.n`), b.workspace)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ws, nid, page string
		var raw []byte
		if err := rows.Scan(&ws, &raw, &nid, &page); err != nil {
			return err
		}
		var ev state.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("a call recorded in workspace %q: %w", ws, err)
		}
		p := &state.Person{Lead: person.Lead{NetworkID: nid, PageName: page}}
		var e state.Enrichment
		switch {
		case ev.Kind == state.EventEnrich && ev.Enrich != nil:
			p.ID = ev.Enrich.PersonID
			e = state.Enrichment{EnrichedAt: ev.At.UTC(), By: ev.Address, Result: ev.Enrich.Result}
		case ev.Kind == state.EventReuse && ev.Reuse != nil:
			p.ID = ev.Reuse.PersonID
			e = ev.Reuse.Enrichment
			e.By = state.ReusedPrefix + ev.Reuse.Workspace
			e.Result.CreditBalance = 0
		default:
			continue
		}
		offer(out, want, p, ws, e)
		// The person may not be in the rows yet: the answer names them too.
		offer(out, want, &state.Person{ID: p.ID, Lead: person.Lead{NetworkID: e.Result.NetworkID, PageName: e.Result.PageName}}, ws, e)
	}
	return rows.Err()
}
