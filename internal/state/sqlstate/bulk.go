package sqlstate

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"strconv"

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
	stmts map[string]driver.Stmt
	vals  []any
	args  []driver.NamedValue
}

// insertBatch writes the rows of batch's people, their enrichments and
// their histories, into a workspace that holds none of them.
func (b *bulk) insertBatch(ctx context.Context, batch []*state.Person) error {
	return b.conn.Raw(func(dc any) error {
		for _, p := range batch {
			if err := b.insertPerson(ctx, dc, p); err != nil {
				return fmt.Errorf("person %s: %w", p.ID, err)
			}
		}
		return nil
	})
}

// insertPerson writes p's rows (insertPerson of the Writer, through dc).
func (b *bulk) insertPerson(ctx context.Context, dc any, p *state.Person) error {
	v, err := AppendPersonValues(b.vals[:0], b.d, b.ws, p)
	if err != nil {
		return err
	}
	if err := b.exec(ctx, dc, UpsertSQL("people", PeopleCols), v); err != nil {
		return err
	}
	if p.Enrichment != nil {
		if v, err = AppendEnrichmentValues(v[:0], b.d, b.ws, p.ID, p.Enrichment); err != nil {
			return err
		}
		if err := b.exec(ctx, dc, UpsertSQL("enrichments", EnrichmentCols), v); err != nil {
			return err
		}
	}
	for i := range p.History {
		v = append(v[:0], HistoryValues(b.d, b.ws, p.ID, i, &p.History[i])...)
		if err := b.exec(ctx, dc, InsertHistory, v); err != nil {
			return err
		}
	}
	b.vals = v[:0]
	return nil
}

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
