package pg

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// A person's found_by holds the numbers of the rows of the table
// addresses (schema version 15, as SQLite's schema 6: sqlstate/addrs.go).
// A reader reads the workspace's addresses once (addressNames) and turns
// each list back into texts, in byte order; a writer numbers the
// addresses it writes (numbers) in its transaction first.

// addressNames are the addresses of workspace ws by number.
func addressNames(ctx context.Context, q querier, b *Backend, ws string) (map[int32]string, error) {
	rows, err := q.Query(ctx, b.sql(`SELECT n, address FROM {s}.addresses WHERE workspace = $1`), ws)
	if err != nil {
		return nil, fmt.Errorf("reading the addresses: %w", err)
	}
	defer rows.Close()
	out := map[int32]string{}
	for rows.Next() {
		var n int32
		var a string
		if err := rows.Scan(&n, &a); err != nil {
			return nil, fmt.Errorf("reading the addresses: %w", err)
		}
		out[n] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the addresses: %w", err)
	}
	return out, nil
}

// foundByLists are the lists of one address read so far, by their raw
// value: identical FoundBy lists are shared, as the file loader does
// (most people are found by one search). names are the addresses by
// number.
type foundByLists struct {
	names map[int32]string
	seen  map[string][]string
}

func newFoundByLists(names map[int32]string) *foundByLists {
	return &foundByLists{names: names, seen: map[string][]string{}}
}

// read reads a found_by value (nil for NULL): the addresses of its
// numbers, in byte order.
func (l *foundByLists) read(tm *pgtype.Map, fd pgconn.FieldDescription, raw []byte) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	if shared, ok := l.seen[string(raw)]; ok {
		return shared, nil
	}
	var nums []int32
	if err := tm.Scan(fd.DataTypeOID, fd.Format, raw, &nums); err != nil {
		return nil, err
	}
	fb := make([]string, len(nums))
	for i, n := range nums {
		a, ok := l.names[n]
		if !ok {
			return nil, fmt.Errorf("found_by names the address number %d, which the table addresses does not hold", n)
		}
		fb[i] = a
	}
	slices.Sort(fb)
	if len(fb) == 1 {
		l.seen[string(raw)] = fb
	}
	return fb, nil
}

// numbers are the numbers of the addresses the people found_by name in
// workspace ws, those without one given the next, in q's transaction:
// only the addresses written are looked up.
func (b *Backend) numbers(ctx context.Context, q querier, ws string, people []*state.Person) (*sqlstate.Numbers, error) {
	var want []string
	seen := map[string]bool{}
	for _, p := range people {
		if p == nil {
			continue
		}
		for _, a := range sqlstate.AddressesOf(p) {
			if !seen[a] {
				seen[a] = true
				want = append(want, a)
			}
		}
	}
	byAddr := make(map[string]int64, len(want))
	if len(want) == 0 {
		return sqlstate.NumbersOf(byAddr), nil
	}
	if err := b.lookUpNumbers(ctx, q, ws, want, byAddr); err != nil {
		return nil, err
	}
	if missing := unnumbered(want, byAddr); len(missing) > 0 {
		if err := b.numberMissing(ctx, q, ws, missing, byAddr); err != nil {
			return nil, err
		}
	}
	return sqlstate.NumbersOf(byAddr), nil
}

// unnumbered are the addresses of want that byAddr has no number of.
func unnumbered(want []string, byAddr map[string]int64) []string {
	var out []string
	for _, a := range want {
		if _, ok := byAddr[a]; !ok {
			out = append(out, a)
		}
	}
	return out
}

// numberMissing gives the addresses of missing the next numbers of
// workspace ws, under the lock of the workspace's row (held to the end
// of q's transaction): two writers numbering at once would both take
// the highest number read and one would fail on the primary key. The
// second waits for the first, then looks up again (each statement reads
// what committed before it): the first may have numbered the same
// addresses.
func (b *Backend) numberMissing(ctx context.Context, q querier, ws string, missing []string, byAddr map[string]int64) error {
	if _, err := q.Exec(ctx, b.sql(`SELECT 1 FROM {s}.workspaces WHERE name = $1 FOR UPDATE`), ws); err != nil {
		return fmt.Errorf("numbering the addresses: %w", err)
	}
	if err := b.lookUpNumbers(ctx, q, ws, missing, byAddr); err != nil {
		return err
	}
	missing = unnumbered(missing, byAddr)
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	if _, err := q.Exec(ctx, b.sql(`INSERT INTO {s}.addresses (workspace, n, address)
		SELECT $1, (SELECT coalesce(max(n), 0) FROM {s}.addresses WHERE workspace = $1) + o, a FROM unnest($2::text[]) WITH ORDINALITY AS u(a, o)`), ws, missing); err != nil {
		return fmt.Errorf("numbering the addresses: %w", err)
	}
	return b.lookUpNumbers(ctx, q, ws, missing, byAddr)
}

// lookUpNumbers puts the numbers of the addresses of want that have one
// into byAddr.
func (b *Backend) lookUpNumbers(ctx context.Context, q querier, ws string, want []string, byAddr map[string]int64) error {
	rows, err := q.Query(ctx, b.sql(`SELECT n, address FROM {s}.addresses WHERE workspace = $1 AND address = ANY($2)`), ws, want)
	if err != nil {
		return fmt.Errorf("numbering the addresses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		var a string
		if err := rows.Scan(&n, &a); err != nil {
			return fmt.Errorf("numbering the addresses: %w", err)
		}
		byAddr[a] = n
	}
	return rows.Err()
}
