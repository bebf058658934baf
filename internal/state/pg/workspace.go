package pg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/version"
)

// replace makes s the workspace's whole state, in one transaction: every
// row of the workspace is deleted and s's rows are copied in (COPY). The
// caller holds b.mu and the workspace's lock.
func (b *Backend) replace(ctx context.Context, s *state.State) error {
	if err := s.CheckWhole(); err != nil {
		return err
	}
	c, err := b.writable(ctx)
	if err != nil {
		return err
	}
	var next int64
	var createdAt time.Time
	err = b.inTx(ctx, c, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var err error
		if next, createdAt, err = b.resetWorkspace(ctx, tx, s); err != nil {
			return err
		}
		if err := b.copyState(ctx, tx, s); err != nil {
			return err
		}
		return b.copyPeople(ctx, tx, backend.MemoryStream(s, "the state").People)
	})
	if err != nil {
		return err
	}
	s.Serial = uint64(next)
	s.LeadsyncVersion = version.String()
	s.FormatVersion = state.FormatVersion
	s.Journal = nil
	s.Epoch = epoch(createdAt)
	s.Track()
	s.TakeChanges()
	return nil
}

// resetWorkspace empties the workspace in tx and writes its row anew for
// s, keeping its created_at (its epoch: see state.DataMark) and raising
// its count of the addresses' changes (its addresses are written again:
// a reader's names must not match); it returns the workspace's next
// serial and its created_at. Deleting the workspace row removes every
// row of it (ON DELETE CASCADE).
func (b *Backend) resetWorkspace(ctx context.Context, tx pgx.Tx, s *state.State) (next int64, createdAt time.Time, err error) {
	ws := b.workspace
	usage, err := json.Marshal(&s.Usage)
	if err != nil {
		return 0, time.Time{}, err
	}
	extra, err := stateExtra.Encode(stripMaps(s))
	if err != nil {
		return 0, time.Time{}, err
	}
	var serial, changed int64
	var created *time.Time
	err = tx.QueryRow(ctx, b.sql(`SELECT serial, created_at, addresses_changed FROM {s}.workspaces WHERE name = $1`), ws).Scan(&serial, &created, &changed)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, time.Time{}, b.wrap("reading the workspace", err)
	}
	if _, err := tx.Exec(ctx, b.sql(`DELETE FROM {s}.workspaces WHERE name = $1`), ws); err != nil {
		return 0, time.Time{}, b.wrap("emptying the workspace", err)
	}
	next = max(int64(s.Serial), serial) + 1
	if err := tx.QueryRow(ctx, b.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, leadsync_version, usage, extra, created_at, service, configuration, addresses_changed) VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, now()), $9, $10, $11) RETURNING created_at`),
		ws, s.Lineage, next, state.FormatVersion, version.String(), usage, extra, created, s.Service, s.Configuration, changed+1).Scan(&createdAt); err != nil {
		return 0, time.Time{}, b.wrap("creating the workspace", err)
	}
	return next, createdAt, nil
}

// copyState copies s's records but its people into the workspace in tx
// (COPY): searches, profile reads, failures.
func (b *Backend) copyState(ctx context.Context, tx pgx.Tx, s *state.State) error {
	ws := b.workspace
	copyRows := func(table string, cols []string, n int, row func(i int) ([]any, error)) error {
		if n == 0 {
			return nil
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{b.schema, table}, cols, &copySource{n: n, row: row})
		if err != nil {
			return b.wrap("writing "+table, err)
		}
		return nil
	}
	searches := sortedKeys(s.Searches)
	if err := copyRows("searches", searchCols, len(searches), func(i int) ([]any, error) {
		sr := *s.Searches[searches[i]]
		sr.Address = searches[i]
		return sqlstate.SearchValues(b.dialect, ws, &sr)
	}); err != nil {
		return err
	}
	profiles := sortedKeys(s.Profiles)
	if err := copyRows("profile_reads", profileReadCols, len(profiles), func(i int) ([]any, error) {
		pr := *s.Profiles[profiles[i]]
		pr.Address = profiles[i]
		return sqlstate.ProfileReadValues(b.dialect, ws, &pr)
	}); err != nil {
		return err
	}
	failures := sortedKeys(s.Failures)
	if err := copyRows("failures", failureCols, len(failures), func(i int) ([]any, error) {
		return sqlstate.FailureValues(b.dialect, ws, failures[i], s.Failures[failures[i]])
	}); err != nil {
		return err
	}
	return nil
}

func sortedKeys[T any](m map[string]*T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// copySource feeds CopyFrom one row at a time, so that a big state is
// never held twice.
type copySource struct {
	n, i int
	row  func(i int) ([]any, error)
	cur  []any
	err  error
}

func (c *copySource) Next() bool {
	if c.err != nil || c.i >= c.n {
		return false
	}
	c.cur, c.err = c.row(c.i)
	c.i++
	return c.err == nil
}
func (c *copySource) Values() ([]any, error) { return c.cur, c.err }
func (c *copySource) Err() error             { return c.err }

// NotEmptyError is returned by Push for a workspace that holds a state
// (the same error on every backend).
type NotEmptyError = backend.NotEmptyError

// WorkspaceInfo is one workspace, as listed (the same on every backend).
type WorkspaceInfo = backend.WorkspaceInfo

// info returns the workspace ws, nil when it does not exist.
func (b *Backend) info(ctx context.Context, q querier, ws string) (*WorkspaceInfo, error) {
	list, err := b.list(ctx, q, ws)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func (b *Backend) list(ctx context.Context, q querier, only string) ([]WorkspaceInfo, error) {
	rows, err := q.Query(ctx, b.sql(`SELECT w.name, w.lineage, w.serial, w.created_at,
		(SELECT count(*) FROM {s}.people p WHERE p.workspace = w.name),
		(SELECT count(*) FROM {s}.searches x WHERE x.workspace = w.name) + (SELECT count(*) FROM {s}.profile_reads x WHERE x.workspace = w.name)
		FROM {s}.workspaces w WHERE $1 = '' OR w.name = $1 ORDER BY w.name`), only)
	if err != nil {
		return nil, b.wrap("listing the workspaces", err)
	}
	defer rows.Close()
	var out []WorkspaceInfo
	for rows.Next() {
		var w WorkspaceInfo
		var serial int64
		if err := rows.Scan(&w.Name, &w.Lineage, &serial, &w.Created, &w.People, &w.Blocks); err != nil {
			return nil, b.wrap("listing the workspaces", err)
		}
		w.Serial, w.Created, w.Exists = uint64(serial), w.Created.UTC(), true
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, b.wrap("listing the workspaces", err)
	}
	return out, nil
}

// Workspaces lists the workspaces, the default one always included (it
// exists implicitly until something is written to it).
func (b *Backend) Workspaces() ([]WorkspaceInfo, error) {
	var list []WorkspaceInfo
	_, err := b.reading(func(ctx context.Context, c *pgx.Conn) error {
		var err error
		list, err = b.list(ctx, c, "")
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, w := range list {
		if w.Name == DefaultWorkspace {
			return list, nil
		}
	}
	list = append([]WorkspaceInfo{{Name: DefaultWorkspace}}, list...)
	return list, nil
}

// CreateWorkspace creates the workspace name with an empty state.
func (b *Backend) CreateWorkspace(name string) error {
	if err := CheckWorkspaceName(name); err != nil {
		return err
	}
	return b.writing(func(ctx context.Context, c *pgx.Conn) error {
		s := state.New()
		tag, err := c.Exec(ctx, b.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, leadsync_version) VALUES ($1, $2, 0, $3, $4) ON CONFLICT (name) DO NOTHING`),
			name, s.Lineage, state.FormatVersion, version.String())
		if err != nil {
			return b.wrap("creating workspace "+name, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("workspace %q already exists in PostgreSQL (schema %s)", name, b.schema)
		}
		return nil
	})
}

// DeleteWorkspace deletes the workspace name and everything it holds. A
// workspace that holds searches, profiles or people is refused unless
// force; the default workspace and a locked one are refused.
func (b *Backend) DeleteWorkspace(name string, force bool) error {
	if name == DefaultWorkspace {
		return fmt.Errorf("the workspace %q cannot be deleted (empty it with leadsync state rm, or use another workspace)", DefaultWorkspace)
	}
	if err := CheckWorkspaceName(name); err != nil {
		return err
	}
	other := &Backend{opts: b.opts, schema: b.schema, quoted: b.quoted, dialect: b.dialect, workspace: name}
	other.opts.Workspace = name
	defer other.Close()
	l, err := other.lock("workspace delete")
	if err != nil {
		return err
	}
	defer l.Unlock()
	return other.writing(func(ctx context.Context, c *pgx.Conn) error {
		info, err := other.info(ctx, c, name)
		if err != nil {
			return err
		}
		if info == nil {
			return noWorkspace(name)
		}
		if !force && !info.IsEmpty() {
			return fmt.Errorf("workspace %q is not empty (%s); nothing was deleted. Use --force to delete it with everything it holds", name, backend.Holdings(info.Blocks, info.People))
		}
		if _, err := c.Exec(ctx, other.sql(`DELETE FROM {s}.workspaces WHERE name = $1`), name); err != nil {
			return other.wrap("deleting the workspace", err)
		}
		return nil
	})
}

// epoch is the state's Epoch for a workspace row made at created: a
// workspace deleted and made again under its name, then given the same
// lineage (pushed from one file), may reach the serials of the one before
// with other data; its created_at differs.
func epoch(created time.Time) string {
	return created.UTC().Format(time.RFC3339Nano)
}
