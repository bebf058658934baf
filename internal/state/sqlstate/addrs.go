package sqlstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// On SQLite (schema version 6 on) a person's found_by holds numbers, a JSON
// array such as [3,17]: each is the number of an address in the table
// addresses, one row per address a workspace's people were found by. A
// move renames that one row (RenameStmts), not the rows of the millions
// of people the address names. Since schema version 8 (pg 17) the
// enrichments' blocks and the blocks that copied them (by_n, copied_n)
// and the histories' calls (by_n) hold numbers of the same table, which
// the queries name (NameOf). The Writer numbers the addresses it
// writes (inserting the new ones in its transaction); the Reader gives
// each list back as texts, in byte order, as state.Person.FoundBy is
// kept. The view people_found_by shows the lists as texts to sqlite3's
// users. PostgreSQL (its schema version 15) keeps the same table, found_by
// as integer[] and the same view (its migration: pg's numberAddresses);
// pg's own readers and bulk writers map the numbers (pg/addrs.go).

// addressesSchema is the table of the numbered addresses and the view of
// the people's found_by as texts, in the schema since version 6.
// renamed counts the renames of the row.
const addressesSchema = `
CREATE TABLE addresses (
	workspace text NOT NULL REFERENCES workspaces (name) ON DELETE CASCADE,
	n         integer NOT NULL,
	address   text NOT NULL,
	renamed   integer NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, n),
	UNIQUE (workspace, address)
);
CREATE VIEW people_found_by AS SELECT p.workspace, p.id, CASE WHEN p.found_by IS NULL THEN NULL ELSE
	(SELECT json_group_array(address) FROM (SELECT (SELECT a.address FROM addresses a WHERE a.workspace = p.workspace AND a.n = j.value) AS address FROM json_each(p.found_by) j ORDER BY 1)) END AS found_by
	FROM people p;
`

// numberAddresses is the migration to schema version 6: the addresses
// the people's found_by name are numbered (in byte order, per
// workspace), then each list written as their numbers, in its order.
// Only lists of texts are numbered, and only addresses without a number:
// made again over a numbered database, it changes nothing.
var numberAddresses = strings.NewReplacer("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", "CREATE VIEW", "CREATE VIEW IF NOT EXISTS").Replace(addressesSchema) + `
INSERT INTO addresses (workspace, n, address) SELECT workspace, (SELECT coalesce(max(n), 0) FROM addresses a WHERE a.workspace = x.workspace) + row_number() OVER (PARTITION BY workspace ORDER BY address), address
	FROM (SELECT DISTINCT p.workspace, j.value AS address FROM people p, json_each(p.found_by) j WHERE p.found_by IS NOT NULL AND j.type = 'text'
		AND NOT EXISTS (SELECT 1 FROM addresses a WHERE a.workspace = p.workspace AND a.address = j.value)) AS x;
UPDATE people SET found_by = (SELECT json_group_array((SELECT a.n FROM addresses a WHERE a.workspace = people.workspace AND a.address = j.value)) FROM json_each(people.found_by) j)
	WHERE found_by IS NOT NULL AND found_by <> '[]' AND json_type(found_by, '$[0]') = 'text';
`

// addressChanges counts the changes of a workspace's addresses in its
// row of workspaces (addresses_changed), in the schema since version 7:
// every row added, renamed or removed raises it, by whatever statement,
// so that a reader's names are read again exactly when the table changed
// (namesKey). A count of the rows, their highest number and their
// renames missed a copy that gave the same numbers other names
// (local/pushcopy.go: copyAddresses).
const addressChanges = `
CREATE TRIGGER addresses_added AFTER INSERT ON addresses BEGIN
	UPDATE workspaces SET addresses_changed = addresses_changed + 1 WHERE name = NEW.workspace; END;
CREATE TRIGGER addresses_renamed AFTER UPDATE ON addresses BEGIN
	UPDATE workspaces SET addresses_changed = addresses_changed + 1 WHERE name = NEW.workspace; END;
CREATE TRIGGER addresses_removed AFTER DELETE ON addresses BEGIN
	UPDATE workspaces SET addresses_changed = addresses_changed + 1 WHERE name = OLD.workspace; END;
`

// countAddressChanges is the migration to schema version 7: the count
// and its triggers (addressChanges); no row is rewritten.
const countAddressChanges = `ALTER TABLE workspaces ADD COLUMN addresses_changed integer NOT NULL DEFAULT 0;` + addressChanges

const (
	selectAddresses = `SELECT n, address FROM {s}.addresses WHERE workspace = $1`
	insertAddress   = `INSERT INTO {s}.addresses (workspace, n, address) VALUES ($1, $2, $3)`
	selectNumber    = `SELECT n FROM {s}.addresses WHERE workspace = $1 AND address = $2`
	lastNumber      = `SELECT coalesce(max(n), 0) FROM {s}.addresses WHERE workspace = $1`
	// addressesSig is the count of the changes of the workspace's
	// addresses (addressChanges), -1 without the workspace's row.
	addressesSig = `SELECT coalesce((SELECT addresses_changed FROM {s}.workspaces WHERE name = $1), -1)`
	// addressesKey is what a read's names are kept under (namesKey).
	addressesKey = `SELECT created_at, addresses_changed FROM {s}.workspaces WHERE name = $1`
)

// namesKey tells whether the names a read knows are still the table's:
// the workspace's count of the addresses' changes (addressChanges) and
// the created_at of its row. A workspace deleted and made again under
// the same name counts from 0 again, so the count alone could meet the
// one a reader knew of the old workspace; its created_at differs. A
// push in place keeps created_at and raises the count (resetWorkspace).
// The zero key, changed -1, is that of no row.
type namesKey struct {
	created string
	changed int64
}

// readNamesKey reads the namesKey of the Reader's workspace.
func (r *Reader) readNamesKey(ctx context.Context) (namesKey, error) {
	var k namesKey
	err := r.Q.QueryRowContext(ctx, r.D.Rewrite(addressesKey), r.WS).Scan(&k.created, &k.changed)
	if errors.Is(err, sql.ErrNoRows) {
		return namesKey{changed: -1}, nil
	}
	return k, err
}

// SetAddressChanges sets the workspace's count of the addresses' changes
// (addressChanges): a workspace written again goes on from its count.
const SetAddressChanges = `UPDATE {s}.workspaces SET addresses_changed = $2 WHERE name = $1`

// Numbers are the numbers of the addresses one write transaction wrote,
// and the last number given (-1 until read).
type Numbers struct {
	byAddr map[string]int64
	last   int64
}

// NumbersOf are the Numbers of the addresses byAddr (a backend that
// numbers them itself: pg).
func NumbersOf(byAddr map[string]int64) *Numbers { return &Numbers{byAddr: byAddr, last: -1} }

// Of is the number of the address a.
func (n *Numbers) Of(a string) (int64, error) {
	if n == nil {
		return 0, fmt.Errorf("the address %s written without the addresses' numbers", a)
	}
	num, ok := n.byAddr[a]
	if !ok {
		return 0, fmt.Errorf("the address %s has no number", a)
	}
	return num, nil
}

// OfOptional is the number of the address a, NULL for none.
func (n *Numbers) OfOptional(a string) (any, error) {
	if a == "" {
		return nil, nil
	}
	return n.Of(a)
}

// AddressesOf are the addresses p's rows name, each a number in them:
// its found_by, its enrichment's block and the block that copied it,
// and its history's calls. Some may repeat.
func AddressesOf(p *state.Person) []string {
	out := slices.Clone(p.FoundBy)
	if e := p.Enrichment; e != nil {
		out = append(out, e.By)
		if e.CopiedBy != "" {
			out = append(out, e.CopiedBy)
		}
	}
	for i := range p.History {
		out = append(out, p.History[i].By)
	}
	return out
}

// List is the value of found_by l: the JSON array of its addresses'
// numbers, in l's order (NULL for nil).
func (n *Numbers) List(l []string) (any, error) {
	if l == nil {
		return nil, nil
	}
	b := make([]byte, 0, 2+6*len(l))
	b = append(b, '[')
	for i, a := range l {
		num, ok := n.byAddr[a]
		if !ok {
			return nil, fmt.Errorf("the address %s has no number", a)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, num, 10)
	}
	return string(append(b, ']')), nil
}

// number gives every address of lists a number, inserting the new ones
// in the Writer's transaction.
// Only the addresses it writes are looked up, each once a transaction:
// a call's write reads a few rows, not the whole table.
func (w *Writer) number(ctx context.Context, lists ...[]string) error {
	if w.nums == nil {
		w.nums = &Numbers{byAddr: map[string]int64{}, last: -1}
	}
	for _, l := range lists {
		for _, a := range l {
			if _, ok := w.nums.byAddr[a]; ok {
				continue
			}
			if err := w.numberOne(ctx, a); err != nil {
				return fmt.Errorf("numbering the address %s: %w", a, err)
			}
		}
	}
	return nil
}

// numberOne finds a's number, or gives it the next one.
func (w *Writer) numberOne(ctx context.Context, a string) error {
	var n int64
	err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(selectNumber), w.WS, a).Scan(&n)
	if err == nil {
		w.nums.byAddr[a] = n
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if w.nums.last < 0 {
		if err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(lastNumber), w.WS).Scan(&w.nums.last); err != nil {
			return err
		}
	}
	w.nums.last++
	if _, err := w.exec(ctx, insertAddress, w.WS, w.nums.last, a); err != nil {
		return err
	}
	w.nums.byAddr[a] = w.nums.last
	return nil
}

// numbersFor are the Numbers of the person values a Writer writes.
func (w *Writer) numbersFor(ctx context.Context, lists ...[]string) (*Numbers, error) {
	if err := w.number(ctx, lists...); err != nil {
		return nil, err
	}
	return w.nums, nil
}

// foundByValue is the value of the found_by column of l: SQLite's
// JSON array, PostgreSQL's integer[].
func foundByValue(d *Dialect, nums *Numbers, l []string) (any, error) {
	if nums == nil {
		return nil, fmt.Errorf("found_by written without the addresses' numbers")
	}
	if d.positional {
		return nums.List(l)
	}
	return nums.ints(l)
}

// ints are the numbers of l's addresses, in l's order (nil for nil).
func (n *Numbers) ints(l []string) ([]int32, error) {
	if l == nil {
		return nil, nil
	}
	out := make([]int32, len(l))
	for i, a := range l {
		num, ok := n.byAddr[a]
		if !ok {
			return nil, fmt.Errorf("the address %s has no number", a)
		}
		out[i] = int32(num)
	}
	return out, nil
}

// addressNames are a workspace's addresses by number, as a read sees
// them, and the table's namesKey when read.
type addressNames struct {
	byN map[int64]string
	key namesKey
}

// names makes d's addresses those of the Reader's table: read again
// when the table changed since (its lists forgotten with them).
func (d *personDecoder) names(ctx context.Context, r *Reader) error {
	key, err := r.readNamesKey(ctx)
	if err != nil {
		return fmt.Errorf("reading the addresses: %w", err)
	}
	if d.addrs != nil && d.addrs.key == key {
		return nil
	}
	rows, err := r.query(ctx, selectAddresses, r.WS)
	if err != nil {
		return fmt.Errorf("reading the addresses: %w", err)
	}
	defer rows.Close()
	an := &addressNames{byN: map[int64]string{}, key: key}
	for rows.Next() {
		var n int64
		var a string
		if err := rows.Scan(&n, &a); err != nil {
			return err
		}
		an.byN[n] = a
	}
	if err := rows.Err(); err != nil {
		return err
	}
	d.addrs = an
	clear(d.lists)
	return nil
}

// numberedList is the list of addresses of text, a JSON array of
// numbers, sorted in byte order.
func (d *personDecoder) numberedList(text string) ([]string, error) {
	body := strings.TrimSpace(text)
	if len(body) < 2 || body[0] != '[' || body[len(body)-1] != ']' {
		return nil, fmt.Errorf("a list %q is not a JSON array of numbers", text)
	}
	body = body[1 : len(body)-1]
	out := []string{}
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	for f := range strings.SplitSeq(body, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("a list %q is not a JSON array of numbers", text)
		}
		a, ok := d.addrs.byN[n]
		if !ok {
			return nil, fmt.Errorf("found_by names the address number %d, which the table addresses does not hold", n)
		}
		out = append(out, a)
	}
	sort.Strings(out)
	return out, nil
}

// numberBatch numbers the addresses of batch's found_by (before the
// driver's connection is taken to write them: bulk).
func (w *Writer) numberBatch(ctx context.Context, batch []*state.Person) error {
	for _, p := range batch {
		if p != nil {
			if err := w.number(ctx, AddressesOf(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// rename runs the statements of the renames (RenameStmts), each whose If
// holds; the numbers read before are read again after.
func (w *Writer) rename(ctx context.Context, renames []Stmt) error {
	for _, st := range renames {
		if st.If != "" {
			var ok bool
			if err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(st.If), st.Args...).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		if _, err := w.exec(ctx, st.Q, st.Args...); err != nil {
			return err
		}
	}
	if len(renames) > 0 {
		w.nums = nil
	}
	return nil
}

// The statements of the moves of one step (renameSteps) in workspace $1
// where found_by holds numbers. renameAddress renames the row of $2 to
// $3, unless $3 has a row already (an address a workspace's people were
// found by before): then numberedFoundByRename, run before it, gives
// every person whose found_by names the number of $2 the number of $3
// instead, as the fold of the move does (state.Moved). That reads every
// person of the workspace (no index holds the numbers of the lists), but
// only in that case. On PostgreSQL pgRenameAddresses renames the rows of
// all the step's moves at once ($2 and $3 their lists): each statement
// on addresses raises the workspace's count of changes (addressChanges),
// and 10,000 updates of that one row in one transaction took 16.5 s at
// load 30 (each walks the row's versions). SQLite updates it in place,
// and its planner read every move a row in the one statement (27.5 s of
// CPU for 10,000). A step's moves are independent: no move's destination
// is another's source.
const (
	renameAddress = `UPDATE {s}.addresses SET address = $3, renamed = renamed + 1
		WHERE workspace = $1 AND address = $2 AND NOT EXISTS (SELECT 1 FROM {s}.addresses WHERE workspace = $1 AND address = $3)`
	pgRenameAddresses = `UPDATE {s}.addresses a SET address = m.t, renamed = a.renamed + 1 FROM unnest($2::text[], $3::text[]) AS m(f, t)
		WHERE a.workspace = $1 AND a.address = m.f AND NOT EXISTS (SELECT 1 FROM {s}.addresses b WHERE b.workspace = $1 AND b.address = m.t)`
	bothNumbered          = `SELECT EXISTS (SELECT 1 FROM {s}.addresses WHERE workspace = $1 AND address = $2) AND EXISTS (SELECT 1 FROM {s}.addresses WHERE workspace = $1 AND address = $3)`
	numberOf              = `(SELECT n FROM {s}.addresses WHERE workspace = $1 AND address = `
	numberedFoundByRename = `UPDATE people SET found_by = (SELECT json_group_array(CASE WHEN value = ` + numberOf + `$2) THEN ` + numberOf + `$3) ELSE value END) FROM json_each(people.found_by))
		WHERE workspace = $1 AND found_by IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(people.found_by) WHERE value = ` + numberOf + `$2))`
	pgNumberedFoundByRename = `UPDATE {s}.people SET found_by = ARRAY(SELECT CASE WHEN v = ` + numberOf + `$2) THEN ` + numberOf + `$3) ELSE v END FROM unnest(found_by) WITH ORDINALITY AS u(v, o) ORDER BY o)
		WHERE workspace = $1 AND ` + numberOf + `$2) = ANY(found_by)`
)

// numberedRenames give the enrichments' blocks, the blocks that copied
// them and the histories' calls numbered as $2 the number of $3, when
// both are numbered (bothNumbered), as numberedFoundByRename does
// found_by's: each finds its rows by an index.
var numberedRenames = []string{
	`UPDATE {s}.enrichments SET by_n = ` + numberOf + `$3) WHERE workspace = $1 AND by_n = ` + numberOf + `$2)`,
	`UPDATE {s}.enrichments SET copied_n = ` + numberOf + `$3) WHERE workspace = $1 AND copied_n IS NOT NULL AND copied_n = ` + numberOf + `$2)`,
	`UPDATE {s}.person_history SET by_n = ` + numberOf + `$3) WHERE workspace = $1 AND by_n = ` + numberOf + `$2)`,
}

// stepStmts are the statements of the moves of one step: the found_by,
// enrichments and histories of the people of each that moves onto a
// numbered address, the addresses' rows, then the tracks' reads the
// people's extra names.
func stepStmts(d *Dialect, ws string, step []state.Move) []Stmt {
	pg := !d.positional
	var out []Stmt
	for _, m := range step {
		for _, q := range append([]string{pick(pg, pgNumberedFoundByRename, numberedFoundByRename)}, numberedRenames...) {
			out = append(out, Stmt{Q: q, Args: []any{ws, m.From, m.To}, If: bothNumbered})
		}
	}
	out = append(out, renameAddressesStmts(pg, ws, step)...)
	for _, m := range step {
		out = append(out, Stmt{Q: pick(pg, pgTrackedRename, trackedRename), Args: []any{ws, m.From, m.To}})
	}
	return out
}

// renameAddressesStmts rename the rows of the addresses of step's moves:
// one statement on PostgreSQL, one a move on SQLite.
func renameAddressesStmts(pg bool, ws string, step []state.Move) []Stmt {
	if !pg {
		out := make([]Stmt, len(step))
		for i, m := range step {
			out[i] = Stmt{Q: renameAddress, Args: []any{ws, m.From, m.To}}
		}
		return out
	}
	from, to := make([]string, len(step)), make([]string, len(step))
	for i, m := range step {
		from[i], to[i] = m.From, m.To
	}
	return []Stmt{{Q: pgRenameAddresses, Args: []any{ws, from, to}}}
}

// resetWorkspace deletes every row of the workspace, its own row last,
// and writes its row again for s (ensureWorkspace), its count of the
// addresses' changes one more than before: the addresses are written
// again, and a reader who knew the old names must read them again. A
// count started again at 0 could meet the one the reader knew.
func (w *Writer) resetWorkspace(ctx context.Context, s *state.State, created any) error {
	var changed int64
	if err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(addressesSig), w.WS).Scan(&changed); err != nil {
		return fmt.Errorf("reading the addresses' changes: %w", err)
	}
	for _, t := range WorkspaceTables {
		if _, err := w.Tx.ExecContext(ctx, w.D.Rewrite(`DELETE FROM {s}.`+t.Name+` WHERE `+t.Column+` = $1`), w.WS); err != nil {
			return err
		}
	}
	if err := w.ensureWorkspace(ctx, s, created); err != nil {
		return err
	}
	_, err := w.exec(ctx, SetAddressChanges, w.WS, changed+1)
	return err
}

// blockNames name the numbers of the enrichments' blocks and the
// histories' calls of one read (by_n, copied_n), in Go, as found_by's
// are named: a name a row in SQL cost 0.55 s of CPU more a million rows.
// They are read again once when a number is not among them (a writer
// numbered an address since they were read; byN nil: not read yet).
type blockNames struct {
	ctx    context.Context
	r      *Reader
	byN    map[int64]string
	reread bool
}

// blockNames are the names the store's decoder keeps (read again when
// the table changed: namesKey).
func (p *peopleStore) blockNames() (*blockNames, error) {
	p.dec.mu.Lock()
	defer p.dec.mu.Unlock()
	if err := p.dec.names(p.ctx, p.r); err != nil {
		return nil, err
	}
	return &blockNames{ctx: p.ctx, r: p.r, byN: p.dec.addrs.byN}, nil
}

// of is the address numbered n ("" for NULL).
func (b *blockNames) of(n sql.NullInt64) (string, error) {
	if !n.Valid {
		return "", nil
	}
	if a, ok := b.byN[n.Int64]; ok {
		return a, nil
	}
	if b.reread {
		return "", fmt.Errorf("the address number %d is not in the table addresses", n.Int64)
	}
	b.reread = true
	d := &personDecoder{}
	if err := d.names(b.ctx, b.r); err != nil {
		return "", err
	}
	b.byN = d.addrs.byN
	return b.of(n)
}

// text is of for a number as a packed row gives it.
func (b *blockNames) text(v sql.NullString) (string, error) {
	if !v.Valid {
		return "", nil
	}
	n, err := strconv.ParseInt(v.String, 10, 64)
	if err != nil {
		return "", fmt.Errorf("the address number %q is no number", v.String)
	}
	return b.of(sql.NullInt64{Int64: n, Valid: true})
}
