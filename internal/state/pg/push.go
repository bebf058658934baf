package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// state push writes the workspace a batch of people at a time (COPY), in
// one transaction: a state of millions of people is copied in bounded
// memory, and a source that breaks half-way leaves the workspace as it
// was.

var _ backend.StreamPusher = (*Backend)(nil)

// Push copies s (the local state) into the workspace (PushStream of s).
func (b *Backend) Push(s *state.State, force bool) error {
	_, err := b.PushStream(backend.MemoryStream(s, "the state pushed"), force)
	return err
}

// PushStream copies the state src reads into the workspace, which must
// exist (the default one always does) and be empty unless force. The
// caller holds the workspace's lock. The schema's erasure record is
// applied to the state first; the workspace keeps its created_at (its
// epoch) and its serial goes past both states'.
func (b *Backend) PushStream(src backend.Stream, force bool) (*backend.Pushed, error) {
	var ps *backend.PushSource
	err := b.writing(func(ctx context.Context, c *pgx.Conn) error {
		info, err := b.info(ctx, c, b.workspace)
		if err != nil {
			return err
		}
		// As plan and apply: a workspace other than the default one is
		// made with leadsync workspace new, so that a typo in --workspace
		// does not make a new one.
		if info == nil && b.workspace != DefaultWorkspace {
			return noWorkspace(b.workspace)
		}
		if !force && info != nil && !info.IsEmpty() {
			return &NotEmptyError{Where: b.Describe(), People: info.People, Blocks: info.Blocks}
		}
		// An old state does not bring back a person erased since.
		entries, err := b.erasures(ctx, c)
		if err != nil {
			return err
		}
		if ps, err = backend.PreparePush(src, entries); err != nil {
			return err
		}
		return b.copyWatched(ctx, c, ps, info != nil && info.People > 0)
	})
	if err != nil {
		return nil, err
	}
	return &ps.Pushed, nil
}

// copyWatched copies ps into the workspace in one transaction on c, then
// analyzes the people. The copy of a whole state is not bound by the ten
// minutes of one operation (3,000,000 people took 5 minutes on a loaded
// machine), but by its progress (watchStalls): a stalled copy is rolled
// back, and says so. An interrupt ends the process, and the server rolls
// the transaction back.
func (b *Backend) copyWatched(ctx context.Context, c *pgx.Conn, ps *backend.PushSource, replacing bool) error {
	ctx, w := b.watchStalls(ctx, c, "the push's transaction")
	defer w.end()
	err := b.inTx(ctx, c, pgx.TxOptions{}, func(tx pgx.Tx) error { return b.replaceStream(ctx, tx, ps, replacing) })
	if err != nil {
		return b.stalled(w, err, pushWords)
	}
	analyzePeople(ctx, c, b.sql)
	return nil
}

// pushWords are what the error of a stalled push says of it.
var pushWords = stallWords{
	doing:   "pushing the state",
	undone:  "the push was rolled back: nothing was written",
	unknown: "whether it was committed is unknown: read the workspace (leadsync state list) before doing it again",
}

// replaceStream makes ps the workspace's whole state in tx: every row of
// the workspace is deleted (when replacing people, a table at a time if
// it can: takeOffPersonKeys), the header's rows written, then the people
// a batch at a time (copyPeople), without their keys' checks if it can
// (skipKeyChecks), else with the people's key to their workspace checked
// once at the end if it can (takeOffWorkspaceKey). An error of the
// source is returned as it is.
func (b *Backend) replaceStream(ctx context.Context, tx pgx.Tx, ps *backend.PushSource, replacing bool) error {
	var restore func() error
	var err error
	if replacing {
		if restore, err = b.takeOffPersonKeys(ctx, tx); err != nil {
			return err
		}
	}
	h := ps.Header
	if _, _, err := b.resetWorkspace(ctx, tx, h); err != nil {
		return err
	}
	if b.unchecked, err = b.skipKeyChecks(ctx, tx); err != nil {
		return err
	}
	var putBack func() error
	if !b.unchecked {
		if putBack, err = b.takeOffWorkspaceKey(ctx, tx); err != nil {
			return err
		}
	}
	b.keyOff = putBack != nil
	if err := b.copyState(ctx, tx, h); err != nil {
		return err
	}
	ps.ReleaseLists() // their rows are written
	if err := b.copyPeople(ctx, tx, ps.People); err != nil {
		return err
	}
	for _, f := range []func() error{putBack, restore} {
		if f == nil {
			continue
		}
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// analyzePeople updates the planner's statistics of the people table
// after a push wrote it, before autovacuum does (within a minute or so).
// Without them, state list read 3,000,000 IDs through a sort on disk
// (1.7-2.0 s) instead of the index (0.9 s); the ANALYZE takes 0.8-1.0 s.
// The push is committed: an error here (a role that does not own the
// table) changes nothing of it.
func analyzePeople(ctx context.Context, c *pgx.Conn, sql func(string) string) {
	c.Exec(ctx, sql(`ANALYZE {s}.people`))
}
