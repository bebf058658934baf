package pg

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// A push (and the replacement of a whole state) copies the people a batch
// at a time, each batch three COPYs: the people, their enrichments and
// their histories. leadsync encodes a batch's rows in COPY's binary form
// while the server writes the batch before (a pipeline, aheadWriter):
// the server no longer waits for each batch to be encoded, nor leadsync
// for each to be written. For a role that keeps the keys' checks, the
// server runs them at each COPY's end: leadsync used to wait for them.

// copyPeople copies the people people passes (a Stream's People) into the
// workspace in tx, one batch encoded while the one before is written. The
// first error, the server's or the source's, stops the copy and is
// returned; tx is then to be rolled back.
func (b *Backend) copyPeople(ctx context.Context, tx pgx.Tx, people func(fn func([]*state.Person) error) error) error {
	enc, err := b.newPeopleEncoder(ctx, tx)
	if err != nil {
		return err
	}
	w := writeAhead(func(eb *encodedBatch) error { return b.writeBatch(ctx, tx, eb) })
	return w.wait(people(func(batch []*state.Person) error {
		eb, err := enc.encode(batch)
		if err != nil {
			return err
		}
		return w.put(eb)
	}))
}

// copyTable is a table the people's rows are copied into: its columns,
// their types and how the encoder encodes each (only the encoder's
// goroutine encodes).
type copyTable struct {
	name  string
	cols  []string
	oids  []uint32
	copy  string // the COPY statement
	m     *pgtype.Map
	plans []columnPlan
	// most is the longest data of a batch so far: the next batch's
	// buffer is made as long, not grown to it a copy at a time.
	most int
}

// columnPlan is the plan that encodes a column's values of one type
// that is never nil: pgtype.Map.Encode looks it up at each value, in
// two maps (a tenth of leadsync's CPU in a push of 3,000,000 people).
type columnPlan struct {
	typ  reflect.Type
	plan pgtype.EncodePlan
}

// copyTableOf reads the types of the columns cols of table in tx; m
// encodes their values.
func (b *Backend) copyTableOf(ctx context.Context, tx pgx.Tx, m *pgtype.Map, table string, cols []string) (*copyTable, error) {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	list := strings.Join(quoted, ", ")
	name := pgx.Identifier{b.schema, table}.Sanitize()
	q := "SELECT " + list + " FROM " + name
	progressed(ctx, q)
	sd, err := tx.Conn().PgConn().Prepare(ctx, "", q, nil)
	if err != nil {
		return nil, b.wrap("reading the columns of "+table, err)
	}
	t := &copyTable{name: table, cols: cols, copy: "COPY " + name + " (" + list + ") FROM STDIN BINARY", m: m, plans: make([]columnPlan, len(cols))}
	for _, f := range sd.Fields {
		t.oids = append(t.oids, f.DataTypeOID)
	}
	return t, nil
}

// appendValue appends the i-th column's value v to buf, its length first
// (-1 for NULL).
func (t *copyTable) appendValue(buf []byte, i int, v any) ([]byte, error) {
	at := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, 0xffffffff) // NULL
	if v == nil {
		return buf, nil
	}
	var out []byte
	var err error
	if cp := &t.plans[i]; cp.typ == reflect.TypeOf(v) {
		out, err = cp.plan.Encode(v, buf)
	} else {
		out, err = t.m.Encode(t.oids[i], pgtype.BinaryFormatCode, v, buf)
		t.remember(i, v)
	}
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", t.cols[i], err)
	}
	if out == nil {
		return buf, nil
	}
	binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out, nil
}

// remember keeps the plan of the i-th column's values of v's type, when
// none of them is nil.
func (t *copyTable) remember(i int, v any) {
	typ := reflect.TypeOf(v)
	switch typ.Kind() {
	case reflect.Chan, reflect.Func, reflect.Map, reflect.Pointer, reflect.UnsafePointer, reflect.Interface, reflect.Slice:
		return // a nil one is NULL, or a driver.Valuer's value: Map.Encode's
	}
	if plan := t.m.PlanEncode(t.oids[i], pgtype.BinaryFormatCode, v); plan != nil {
		t.plans[i] = columnPlan{typ: typ, plan: plan}
	}
}

// copyHeader starts COPY's binary form: its signature, no flags, no
// extension.
var copyHeader = append([]byte("PGCOPY\n\xff\r\n\x00"), make([]byte, 8)...)

// copyData is rows of one table in COPY's binary form.
type copyData struct {
	t    *copyTable
	buf  []byte
	rows int
}

// add appends a row of values (err, that of making them, is returned as
// it is).
func (d *copyData) add(values []any, err error) error {
	if err != nil {
		return err
	}
	if len(values) != len(d.t.oids) {
		return fmt.Errorf("%d values for the %d columns of %s", len(values), len(d.t.oids), d.t.name)
	}
	if d.rows == 0 {
		d.buf = append(d.buf[:0], copyHeader...)
	}
	d.buf = binary.BigEndian.AppendUint16(d.buf, uint16(len(values)))
	for i, v := range values {
		if d.buf, err = d.t.appendValue(d.buf, i, v); err != nil {
			return err
		}
	}
	d.rows++
	return nil
}

// peopleEncoder encodes batches of people as the rows of the people,
// enrichments and person_history tables, and numbers the addresses they
// name as it meets them. It runs beside the connection's goroutine, so it
// has a type map of its own.
type peopleEncoder struct {
	b      *Backend
	m      *pgtype.Map
	tables [3]*copyTable // people, enrichments, person_history
	byAddr map[string]int64
	nums   *sqlstate.Numbers
	next   int64 // the number the next address is given
}

// newPeopleEncoder reads the tables' columns and the numbers of the
// workspace's addresses in tx. The push's transaction wrote the
// workspace's row, so no other writer numbers an address of it until the
// commit: the encoder numbers the new ones itself (encodedBatch.addrs).
// Both callers reset the workspace first, which removes its addresses
// with its row: the read finds none today and guards a caller that
// would not.
func (b *Backend) newPeopleEncoder(ctx context.Context, tx pgx.Tx) (*peopleEncoder, error) {
	e := &peopleEncoder{b: b, m: pgtype.NewMap(), byAddr: map[string]int64{}}
	e.nums = sqlstate.NumbersOf(e.byAddr)
	for i, t := range []struct {
		name string
		cols []string
	}{{"people", peopleCols}, {"enrichments", enrichmentCols}, {"person_history", historyCols}} {
		ct, err := b.copyTableOf(ctx, tx, e.m, t.name, t.cols)
		if err != nil {
			return nil, err
		}
		e.tables[i] = ct
	}
	names, err := addressNames(ctx, tx, b, b.workspace)
	if err != nil {
		return nil, b.wrap("writing people", err)
	}
	e.next = 1
	for n, a := range names {
		e.byAddr[a] = int64(n)
		e.next = max(e.next, int64(n)+1)
	}
	return e, nil
}

// encodedBatch is a batch of people ready to be written: the addresses
// numbered for it (from first, in byte order) and its tables' rows.
type encodedBatch struct {
	addrs []string
	first int64
	data  [3]copyData
}

// encode encodes people's rows.
func (e *peopleEncoder) encode(people []*state.Person) (*encodedBatch, error) {
	eb := &encodedBatch{}
	eb.first, eb.addrs = e.number(people)
	for i, t := range e.tables {
		eb.data[i] = copyData{t: t, buf: make([]byte, 0, t.most)}
	}
	d, ws := e.b.dialect, e.b.workspace
	rows, enrichments, history := &eb.data[0], &eb.data[1], &eb.data[2]
	for _, p := range people {
		if err := rows.add(sqlstate.PersonValues(d, ws, p, e.nums)); err != nil {
			return nil, e.b.wrap("writing people", err)
		}
		if p.Enrichment != nil {
			if err := enrichments.add(sqlstate.EnrichmentValues(d, ws, p.ID, p.Enrichment, e.nums)); err != nil {
				return nil, e.b.wrap("writing enrichments", err)
			}
		}
		for n := range p.History {
			if err := history.add(sqlstate.HistoryValues(d, ws, p.ID, n, &p.History[n], e.nums)); err != nil {
				return nil, e.b.wrap("writing person_history", err)
			}
		}
	}
	for _, d := range eb.data {
		d.t.most = max(d.t.most, len(d.buf))
	}
	return eb, nil
}

// number gives the addresses people name that have no number the next
// ones, in byte order; it returns the first's number and them.
func (e *peopleEncoder) number(people []*state.Person) (first int64, added []string) {
	for _, p := range people {
		for _, a := range sqlstate.AddressesOf(p) {
			if _, ok := e.byAddr[a]; !ok {
				e.byAddr[a] = -1 // numbered below
				added = append(added, a)
			}
		}
	}
	slices.Sort(added)
	first = e.next
	for _, a := range added {
		e.byAddr[a] = e.next
		e.next++
	}
	return first, added
}

// writeBatch writes eb in tx: its addresses' rows, then its tables' rows.
func (b *Backend) writeBatch(ctx context.Context, tx pgx.Tx, eb *encodedBatch) error {
	if len(eb.addrs) > 0 {
		if _, err := tx.Exec(ctx, b.sql(`INSERT INTO {s}.addresses (workspace, n, address)
			SELECT $1, $2 + o - 1, a FROM unnest($3::text[]) WITH ORDINALITY AS u(a, o)`), b.workspace, eb.first, eb.addrs); err != nil {
			return b.wrap("numbering the addresses", err)
		}
	}
	for _, d := range eb.data {
		if d.rows == 0 {
			continue
		}
		progressed(ctx, d.t.copy)
		if _, err := tx.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(d.buf), d.t.copy); err != nil {
			return b.wrap("writing "+d.t.name, err)
		}
	}
	return nil
}

// aheadWriter writes the values put on a goroutine of its own, while the
// putter prepares the next: at most one value waits, so that the putter
// is never more than two ahead of the writes.
type aheadWriter[T any] struct {
	queue   chan T
	failed  chan struct{} // closed when a write failed
	abandon chan struct{} // closed when the putter failed
	done    chan struct{}
	err     error // the write's that failed
}

// writeAhead starts the writes of write; a panic of one (a bug) is the
// error of the write.
func writeAhead[T any](write func(T) error) *aheadWriter[T] {
	w := &aheadWriter[T]{queue: make(chan T, 1), failed: make(chan struct{}), abandon: make(chan struct{}), done: make(chan struct{})}
	go w.run(func(v T) error { return recovered.Call(func() error { return write(v) }) })
	return w
}

func (w *aheadWriter[T]) run(write func(T) error) {
	defer close(w.done)
	for v := range w.queue {
		select {
		case <-w.abandon:
			return
		default:
		}
		if w.err = write(v); w.err != nil {
			close(w.failed)
			return
		}
	}
}

// errWriteFailed stops the putter once a write failed: wait returns the
// write's error.
var errWriteFailed = errors.New("a write failed")

// put queues v, waiting while a value waits already. After a failed
// write it queues nothing, even when the queue has room.
func (w *aheadWriter[T]) put(v T) error {
	select {
	case <-w.failed:
		return errWriteFailed
	default:
	}
	select {
	case w.queue <- v:
		return nil
	case <-w.failed:
		return errWriteFailed
	}
}

// wait ends the writes once the putter ended with err: the values queued
// are written, or dropped when err is not nil. It returns the error of a
// write that failed, else err.
func (w *aheadWriter[T]) wait(err error) error {
	if err != nil {
		close(w.abandon)
	}
	close(w.queue)
	<-w.done
	if w.err != nil {
		return w.err
	}
	return err
}
