package sqlstate

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/leadsync/leadsync/internal/state"
)

// bulk writes the rows of people through the driver's own connection
// (sql.Conn.Raw) instead of database/sql's Exec, for a push of millions
// of people into SQLite: one statement a table, prepared once, with
// anonymous placeholders, and one slice of arguments reused row after
// row. Measured at 300,000 people, database/sql's conversion of each
// row's arguments was a quarter of what the push allocated, and its
// collection a fifth of the CPU (docs/performance.md).
type bulk struct {
	conn  *sql.Conn
	d     *Dialect
	ws    string
	nums  *Numbers // the numbers of the batch's addresses (addrs.go)
	stmts map[string]driver.Stmt
	vals  []any
	args  []driver.NamedValue
}

// insertBatch writes the rows of batch's people, their enrichments and
// their histories, into a workspace that holds none of them: bulkRows
// people at a time, each table's rows in statements of up to bulkRows
// rows (rowsSQL). At 300,000 people that took 12 % less CPU than a
// statement a row (docs/performance.md).
func (b *bulk) insertBatch(ctx context.Context, batch []*state.Person) error {
	return b.conn.Raw(func(dc any) error {
		for len(batch) > 0 {
			n := min(len(batch), bulkRows)
			if err := b.insertRows(ctx, dc, batch[:n]); err != nil {
				return err
			}
			batch = batch[n:]
		}
		return nil
	})
}

// bulkRows is the most rows one statement writes: of 22 columns at most,
// far below SQLite's bound of 32,766 values a statement.
const bulkRows = 32

// insertRows writes the rows of people: theirs, then their enrichments',
// then their histories' (bulkRows a statement), the order the foreign
// keys need.
func (b *bulk) insertRows(ctx context.Context, dc any, people []*state.Person) error {
	v := b.vals[:0]
	var err error
	for _, p := range people {
		if v, err = AppendPersonValues(v, b.d, b.ws, p, b.nums); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
	}
	if err := b.execRows(ctx, dc, UpsertSQL("people", PeopleCols), len(PeopleCols), v); err != nil {
		return err
	}
	v = v[:0]
	for _, p := range people {
		if p.Enrichment != nil {
			if v, err = AppendEnrichmentValues(v, b.d, b.ws, p.ID, p.Enrichment, b.nums); err != nil {
				return fmt.Errorf("person %s: %w", p.ID, err)
			}
		}
	}
	if err := b.execRows(ctx, dc, UpsertSQL("enrichments", EnrichmentCols), len(EnrichmentCols), v); err != nil {
		return err
	}
	v = v[:0]
	for _, p := range people {
		if v, err = AppendHistoryValues(v, b.d, b.ws, p, 0, b.nums); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
	}
	b.vals = v[:0]
	return b.execRows(ctx, dc, InsertHistory, len(HistoryCols), v)
}

// execRows runs q, a statement of one row of k values, for the rows of
// vals: up to bulkRows in one statement (rowsSQL). An error names the
// rows' first two values (workspace and person). Values that are not
// whole rows are refused: a part row would never be written.
func (b *bulk) execRows(ctx context.Context, dc any, q string, k int, vals []any) error {
	if k <= 0 || len(vals)%k != 0 {
		return fmt.Errorf("%d values are not whole rows of %d", len(vals), k)
	}
	for len(vals) > 0 {
		n := min(len(vals)/k, bulkRows)
		if err := b.exec(ctx, dc, rowsSQL(q, n), vals[:n*k]); err != nil {
			return fmt.Errorf("the rows from person %v: %w", vals[1], err)
		}
		vals = vals[n*k:]
	}
	return nil
}

// rowsSQL is q, an INSERT of one row whose VALUES list holds $1 to $k in
// order, writing n rows: the list repeated with $k+1 on. Memoised.
func rowsSQL(q string, n int) string {
	if n == 1 {
		return q
	}
	key := fmt.Sprintf("%d\x00%s", n, q)
	rowsMu.Lock()
	defer rowsMu.Unlock()
	if s, ok := rowsMemo[key]; ok {
		return s
	}
	head, rest, _ := strings.Cut(q, " VALUES (")
	list, tail, _ := strings.Cut(rest, ")")
	k := strings.Count(list, "$")
	var sb strings.Builder
	sb.WriteString(head + " VALUES ")
	for r := range n {
		if r > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(")
		for c := range k {
			if c > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("$" + strconv.Itoa(r*k+c+1))
		}
		sb.WriteString(")")
	}
	sb.WriteString(tail)
	rowsMemo[key] = sb.String()
	return rowsMemo[key]
}

var (
	rowsMu   sync.Mutex
	rowsMemo = map[string]string{}
)

// exec runs q (in PostgreSQL's spelling) with the values vals, converted
// as database/sql converts them.
func (b *bulk) exec(ctx context.Context, dc any, q string, vals []any) error {
	st, err := b.stmt(ctx, dc, q)
	if err != nil {
		return err
	}
	args := b.args[:0]
	for i, v := range vals {
		if v, err = driver.DefaultParameterConverter.ConvertValue(v); err != nil {
			return fmt.Errorf("argument %d: %w", i+1, err)
		}
		args = append(args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	b.args = args
	ex, ok := st.(driver.StmtExecContext)
	if !ok {
		return errors.New("the database driver cannot execute a statement with a context")
	}
	_, err = ex.ExecContext(ctx, args)
	return err
}

// stmt prepares q on dc once.
func (b *bulk) stmt(ctx context.Context, dc any, q string) (driver.Stmt, error) {
	if st := b.stmts[q]; st != nil {
		return st, nil
	}
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, errors.New("the database driver cannot prepare a statement with a context")
	}
	st, err := pc.PrepareContext(ctx, anonymous(b.d.Rewrite(q)))
	if err != nil {
		return nil, err
	}
	if b.stmts == nil {
		b.stmts = map[string]driver.Stmt{}
	}
	b.stmts[q] = st
	return st, nil
}

// close closes the statements prepared.
func (b *bulk) close() error {
	if len(b.stmts) == 0 {
		return nil
	}
	return b.conn.Raw(func(any) error {
		var errs []error
		for _, st := range b.stmts {
			errs = append(errs, st.Close())
		}
		return errors.Join(errs...)
	})
}

var numberedParam = regexp.MustCompile(`\?[0-9]+`)

// anonymous spells the placeholders ?1, ?2, ... of q as ?, when each
// appears once and in order: the driver then binds the arguments by
// position, without looking up each parameter's name.
func anonymous(q string) string {
	i := 0
	inOrder := true
	out := numberedParam.ReplaceAllStringFunc(q, func(m string) string {
		i++
		inOrder = inOrder && m == "?"+strconv.Itoa(i)
		return "?"
	})
	if !inOrder {
		return q
	}
	return out
}
