package run

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// ConsoleView is what leadsync console shows of each line.
type ConsoleView interface {
	// Prompt is shown before each line when a person types them.
	Prompt()
	// Value is the value of an expression (a sensitive one is marked).
	Value(v cty.Value)
	// Selected is whom a where line selects.
	Selected(sel Selection)
	// Help says what a line may be.
	Help()
	// Diagnostics are the problems of line n of the input; line is its
	// text, for the snippet (its file is config.ConsoleFile, its source
	// config.ConsoleSource).
	Diagnostics(diags hcl.Diagnostics, line string, n int)
}

// Selection is whom `where EXPR` selects among the people of the state:
// their IDs and names, sorted by ID, and how many people the state holds.
type Selection struct {
	People []SelectedPerson
	Of     int
}

// SelectedPerson is one person a where selects.
type SelectedPerson struct {
	ID, Name string
}

// ConsoleLine is what one line of the console gave: nothing (an empty
// line), a value, a selection, help, the end (exit), or diagnostics; Err
// when the state could not be read (which stops the console).
type ConsoleLine struct {
	Value     cty.Value
	Selection *Selection
	Help      bool
	Exit      bool
	Diags     hcl.Diagnostics
	Err       error
}

// ConsoleSession evaluates lines against a loaded configuration and the
// state, which open reads without a lock (nil: no state): its records
// once, at the start (each search's and profile's people counted from
// them), its people for each where, a page of the store at a time. No
// read of a store stays open between lines: a database's snapshot would
// keep an erasure from emptying its write-ahead log. A state read whole
// (a state file) is read once. It calls nothing and writes nothing.
type ConsoleSession struct {
	cfg   *config.Config
	open  func() (*state.Base, error)
	whole *state.Base
	scope *config.Scope
}

// NewConsoleSession returns the session of cfg and the state open reads.
func NewConsoleSession(cfg *config.Config, open func() (*state.Base, error)) (*ConsoleSession, error) {
	c := &ConsoleSession{cfg: cfg, open: open}
	found := map[string]int{}
	if open != nil {
		b, done, err := c.base()
		if err != nil {
			return nil, err
		}
		defer done()
		for addr := range b.Records.Searches {
			found[addr] = b.Kept(addr)
		}
		for addr, pr := range b.Records.Profiles {
			if pr.PersonID != "" {
				found[addr] = 1
			}
		}
	}
	c.scope = cfg.ConsoleScope(found)
	return c, nil
}

// base opens the state, and done ends the read: a store's snapshot is
// closed, a state read whole kept for the next line.
func (c *ConsoleSession) base() (b *state.Base, done func(), err error) {
	if c.whole != nil {
		return c.whole, func() {}, nil
	}
	if b, err = c.open(); err != nil {
		return nil, nil, err
	}
	if !b.Stored() {
		c.whole = b
		return b, func() {}, nil
	}
	return b, func() { b.Close() }, nil
}

// Handle evaluates one line: "exit", "help", "where EXPR" (whom EXPR
// selects among the people of the state, reading person.<field> as a
// sheet's where does or lead.<field> as an enrich block's) or an
// expression.
// n is the line's number in the input (from 1), which its diagnostics
// give.
func (c *ConsoleSession) Handle(line string, n int) ConsoleLine {
	line = strings.TrimSpace(line)
	switch {
	case line == "":
		return ConsoleLine{}
	case line == "exit":
		return ConsoleLine{Exit: true}
	case line == "help":
		return ConsoleLine{Help: true}
	case line == "where" || strings.HasPrefix(line, "where "):
		return c.where(strings.TrimPrefix(line, "where"), n)
	}
	expr, diags := config.ParseConsoleLine(line, n)
	if diags.HasErrors() {
		return ConsoleLine{Diags: diags}
	}
	v, diags := c.scope.Eval(expr, nil)
	if diags.HasErrors() {
		return ConsoleLine{Diags: diags}
	}
	return ConsoleLine{Value: v, Diags: diags}
}

// where selects the people of the state for whom src is true. The
// expression keeps its column in the line (the "where" before it is
// blanked out), so that its diagnostics point at the line as typed.
func (c *ConsoleSession) where(src string, n int) ConsoleLine {
	if strings.TrimSpace(src) == "" {
		return ConsoleLine{Diags: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Missing expression",
			Detail: `where takes an expression, like: where person.validationStatus == "valid", or where lead.title == "CTO".`}}}
	}
	expr, diags := config.ParseConsoleLine(strings.Repeat(" ", len("where"))+src, n)
	if diags.HasErrors() {
		return ConsoleLine{Diags: diags}
	}
	fields, lead, diags := config.WhereRoots(expr)
	if diags.HasErrors() {
		return ConsoleLine{Diags: diags}
	}
	fields = slices.DeleteFunc(fields, func(f string) bool { return !slices.Contains(config.PersonAttributes, f) })
	sel := &Selection{People: []SelectedPerson{}}
	if c.open == nil {
		return ConsoleLine{Selection: sel}
	}
	b, done, err := c.base()
	if err != nil {
		return ConsoleLine{Err: err}
	}
	defer done()
	m := c.matcher(expr, fields, lead)
	each := b.EachPerson
	if cols, ok := narrowColumns(expr, fields, lead); ok {
		each = func(fn func(*state.Person) error) error { return b.EachLead(cols, fn) }
	}
	err = eachAhead(b.PageSize(), each, func(p *state.Person) error {
		sel.Of++
		ok, diags := m.match(p)
		if diags.HasErrors() {
			return whereFailed{diags}
		}
		if ok {
			sel.People = append(sel.People, SelectedPerson{ID: p.ID, Name: p.Lead.FullName})
		}
		return nil
	})
	var failed whereFailed
	switch {
	case errors.As(err, &failed):
		return ConsoleLine{Diags: failed.diags}
	case err != nil:
		return ConsoleLine{Err: err}
	}
	return ConsoleLine{Selection: sel}
}

// whereFailed stops a where at the first person it fails for.
type whereFailed struct{ diags hcl.Diagnostics }

func (w whereFailed) Error() string { return w.diags.Error() }

// whereMatcher evaluates one where for one person after the other.
type whereMatcher struct {
	c      *ConsoleSession
	expr   hcl.Expression
	fields []string
	// lead: the where reads lead.<field>; leadOf makes the value of lead
	// (leadValueOf).
	lead   bool
	leadOf func(person.Lead) cty.Value
	// vars are the variables of the last person, made anew in place for
	// each (Scope.Eval copies nothing of them into what it gives).
	vars map[string]cty.Value
	// memo is what the where gave, true or false, by the values it reads
	// (key): the line's scope is fixed and its functions pure, so equal
	// values give the same. nil for a where reading lead otherwise than
	// as lead.<field>: its key would be the whole lead, met once.
	memo     *config.WhereMemo[bool]
	memoKeys []string
}

// matcher is the whereMatcher of expr, which reads the person fields
// fields, or lead when lead is true.
func (c *ConsoleSession) matcher(expr hcl.Expression, fields []string, lead bool) *whereMatcher {
	m := &whereMatcher{c: c, expr: expr, fields: fields, lead: lead, leadOf: leadValueOf(expr), vars: map[string]cty.Value{}}
	read, ok := leadFieldsOf(expr)
	if !lead || ok {
		m.memo = &config.WhereMemo[bool]{}
	}
	for _, f := range read {
		m.memoKeys = append(m.memoKeys, f.Key)
	}
	return m
}

// match evaluates a where for one person, or gives what it gave for the
// same values (memo): true or false, or the problem (naming the person
// when it is theirs alone).
func (m *whereMatcher) match(p *state.Person) (bool, hcl.Diagnostics) {
	vals, diags := m.personValues(p)
	if diags.HasErrors() {
		return false, diags
	}
	if m.memo == nil {
		return m.eval(p, vals)
	}
	var arr [128]byte
	key := m.key(arr[:0], p, vals)
	if ok, found := m.memo.Get(key); found {
		return ok, nil
	}
	ok, diags := m.eval(p, vals)
	if !diags.HasErrors() {
		m.memo.Put(key, ok)
	}
	return ok, diags
}

// personValues are the values a where on person reads of p
// (export.WhereValues); nil for a where on lead.
func (m *whereMatcher) personValues(p *state.Person) (map[string]cty.Value, hcl.Diagnostics) {
	if m.lead {
		return nil, nil
	}
	vals, err := export.WhereValues(m.c.cfg, m.fields, p)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid where", Detail: err.Error(), Subject: m.expr.Range().Ptr()}}
	}
	return vals, nil
}

// key appends to buf the key of the values the where reads of p: the
// lead's fields it reads, or vals, those personValues gave.
func (m *whereMatcher) key(buf []byte, p *state.Person, vals map[string]cty.Value) []byte {
	if m.lead {
		return config.LeadValuesKey(buf, &p.Lead, m.memoKeys)
	}
	return config.PersonValuesKey(buf, m.fields, vals)
}

// eval evaluates a where for one person, a person where with vals, the
// values personValues read of them: true or false, or the problem
// (naming the person when it is theirs alone).
func (m *whereMatcher) eval(p *state.Person, vals map[string]cty.Value) (bool, hcl.Diagnostics) {
	expr := m.expr
	if m.lead {
		m.vars["lead"] = m.leadOf(p.Lead)
	} else {
		m.vars["person"] = config.PersonValue(vals)
	}
	v, diags := m.c.scope.Eval(expr, m.vars)
	if diags.HasErrors() {
		return false, diags
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
		what := "null"
		if !v.IsNull() && v.IsKnown() {
			what = v.Type().FriendlyName()
		}
		return false, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid where",
			Detail:  fmt.Sprintf("A where must give true or false for each person; for person.%s it gave %s.", p.ID, what),
			Subject: expr.Range().Ptr()}}
	}
	return v.True(), nil
}

// leadValueOf makes the value of lead for expr: an object of the lead
// fields expr reads when it reads each as lead.<field> (what it reads of
// it is then the same), else config.LeadValue, every field. Making the
// object of every field for each person was a fifth of a where's CPU
// time at 1,000,000 people.
func leadValueOf(expr hcl.Expression) func(person.Lead) cty.Value {
	read, ok := leadFieldsOf(expr)
	if !ok {
		return config.LeadValue
	}
	return func(l person.Lead) cty.Value {
		attrs := make(map[string]cty.Value, len(read))
		for _, f := range read {
			attrs[f.Key] = cty.StringVal(*f.Lead(&l))
		}
		return cty.ObjectVal(attrs)
	}
}

// leadFieldsOf are the lead fields expr reads, each once, and true when
// it reads lead only as lead.<field> of such fields.
func leadFieldsOf(expr hcl.Expression) ([]*person.PersonField, bool) {
	var read []*person.PersonField
	for _, t := range expr.Variables() {
		if t.RootName() != "lead" {
			continue
		}
		at, ok := hcl.TraverseAttr{}, len(t) > 1
		if ok {
			at, ok = t[1].(hcl.TraverseAttr)
		}
		i := slices.IndexFunc(person.LeadFields, func(f *person.PersonField) bool { return f.Where && f.Key == at.Name })
		if !ok || i < 0 {
			return nil, false
		}
		if !slices.Contains(read, person.LeadFields[i]) {
			read = append(read, person.LeadFields[i])
		}
	}
	return read, true
}

// narrowColumns are the columns a where needs of each person: on lead
// (lead), when it reads lead only as lead.<field> (leadFieldsOf), those
// fields and the full name a selection shows; on person, those
// export.WhereColumns gives for its fields. False when it needs the
// person whole.
func narrowColumns(expr hcl.Expression, fields []string, lead bool) (state.PersonColumns, bool) {
	if !lead {
		return export.WhereColumns(fields)
	}
	read, ok := leadFieldsOf(expr)
	if !ok {
		return state.PersonColumns{}, false
	}
	cols := state.PersonColumns{Lead: []string{"fullName"}}
	for _, f := range read {
		cols.AddLead(f.Key)
	}
	return cols, true
}

// eachAhead calls fn for each person each gives (b.EachPerson, or
// b.EachLead), whose pages of page people are read on a goroutine of its
// own: the next page is read while fn runs for the people of the last
// (one page ahead at most). It stops at the first error of fn or of the
// read, and returns when nothing reads any more.
func eachAhead(page int, each func(func(*state.Person) error) error, fn func(*state.Person) error) error {
	pages, stop, read := make(chan []*state.Person), make(chan struct{}), make(chan error, 1)
	go func() {
		defer close(pages)
		var batch []*state.Person
		send := func() error {
			select {
			case pages <- batch:
				batch = nil
				return nil
			case <-stop:
				return errStopped
			}
		}
		err := recovered.Call(func() error { // a panic: eachAhead's error
			return each(func(p *state.Person) error {
				if batch = append(batch, p); len(batch) < page {
					return nil
				}
				return send()
			})
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		read <- err
	}()
	err := eachOfPages(pages, fn)
	close(stop) // a page under way is not sent: nobody takes it now
	rerr := <-read
	if _, bug := errors.AsType[*recovered.Panic](rerr); bug || err == nil && !errors.Is(rerr, errStopped) {
		err = rerr
	}
	return err
}

// errStopped stops the read of eachAhead once fn failed.
var errStopped = errors.New("stopped")

// eachOfPages calls fn for each person of the pages, until it fails.
func eachOfPages(pages <-chan []*state.Person, fn func(*state.Person) error) error {
	for page := range pages {
		for _, p := range page {
			if err := fn(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Console reads lines from in until its end or a line "exit", and shows
// what each gives through view; a line that fails does not stop it.
// interactive (a person types) shows a prompt before each line. It
// returns how many lines failed.
func Console(sess *ConsoleSession, in io.Reader, view ConsoleView, interactive bool) (failed int, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; ; n++ {
		if interactive {
			view.Prompt()
		}
		if !sc.Scan() {
			return failed, sc.Err()
		}
		line := sc.Text()
		res := sess.Handle(line, n)
		switch {
		case res.Err != nil:
			return failed, res.Err
		case res.Exit:
			return failed, nil
		case res.Diags.HasErrors():
			failed++
			view.Diagnostics(res.Diags, line, n)
		case res.Help:
			view.Help()
		case res.Selection != nil:
			view.Selected(*res.Selection)
		case res.Value != cty.NilVal:
			if len(res.Diags) > 0 {
				view.Diagnostics(res.Diags, line, n) // warnings
			}
			view.Value(res.Value)
		}
	}
}
