package run

import (
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// applyRead is the state an apply plans and runs on (applyState), with
// what goes with it.
type applyRead struct {
	st *state.State
	// release ends the snapshot a partial state reads from (before a
	// commit; a second call does nothing).
	release func() error
	// facts are the store's counts of the enrich block the plan is built
	// with (plan.EnrichReadsOf), nil when the state holds every person
	// the plan reads; now is the time they were counted at, the plan's.
	facts *plan.EnrichFacts
	now   time.Time
	// colleagues are the store's company domains of the people of the
	// plan's tracks and imports that an exclude block by domain matches
	// (plan.Reads.ReadColleagues), nil when the state's people tell them.
	colleagues *plan.Colleagues
	// expired are the people retention removes, found by the store at
	// now (plan.ExpiredOf), nil when the state's people tell them.
	expired *plan.Expired
	// reuse answers the plan's questions to the other workspaces from
	// the read that listed their keys (reuseOnce), nil when none did.
	reuse plan.ReuseLookup
	// gcBack sets the collector back (applyGC, restoreGC), nil when it
	// was left alone.
	gcBack func()
}

func noRelease() error { return nil }

// partialEnrich is the partial state of b an apply runs on when its plan
// reads every person only for an enrich block the store's indexes answer
// (plan.EnrichReadsOf, as plan reads it, at the time a saved plan was
// made: typically the refreshes of a block at its limit): the records, the lead lists and people the plan
// reads, and in sketch, as plan reads them, the people of the block's
// stale enrichments and of imported e-mails (EnrichFacts.Fill). Once
// the plan is made, the sketches are let go (hold); the engine reads
// those people whole when it first chooses people to enrich
// (EnrichFacts.FillWhole): each is counted once, as plan counts it, and
// held once.
// The engine reads what each call changes as it folds
// it in (state/partialfold.go), and chooses the people to enrich from the
// partial state's counts (plan.Candidates). Nil when the plan is of
// another kind, or the counts show the limit leaves a place.
func partialEnrich(d Deps, opts ApplyOptions, b *state.Base, sel plan.Options) (*applyRead, error) {
	if !b.EnrichIndexed() {
		return nil, nil
	}
	now := sel.Now // a saved plan's time
	if now.IsZero() {
		now = d.now()
	}
	popts := sel
	popts.Now = now
	popts.Reuse, popts.ReuseHeld = reuseOnce(d.Backend)
	er, facts, ok, err := plan.EnrichReadsOf(opts.Config, b.Records, popts, b)
	if err != nil || !ok {
		return nil, err
	}
	st, err := writableReading(b, er)
	if err != nil {
		return nil, err
	}
	gcBack := applyGC(st)
	if err := sel.Expired.ReadKept(b, st); err != nil {
		gcBack()
		return nil, err
	}
	facts.Fill(st)
	return &applyRead{st: st, release: sync.OnceValue(b.Close), facts: facts, now: now, expired: sel.Expired, reuse: popts.Reuse, gcBack: gcBack}, nil
}

// planTime is the time the plan is made at: the one the store's counts
// were taken at, or the people retention removes found, else now.
func (in *applyRead) planTime(d Deps) time.Time {
	if in.facts != nil || in.expired != nil {
		return in.now
	}
	return d.now()
}

// build builds the plan of cfg over the state in use, with the store's
// counts when it holds them. When the plan over the people read needs
// every person (EnrichFacts.NeedsEveryone), as plan does, the partial
// state is let go and the state loaded whole, and the plan is made over
// it: in.st is then that state.
func (in *applyRead) build(d Deps, cfg *config.Config, popts plan.Options) (*plan.Plan, hcl.Diagnostics, error) {
	popts.Enrich, popts.Colleagues, popts.Expired = in.facts, in.colleagues, in.expired
	if in.reuse != nil && popts.Reuse != nil {
		popts.Reuse = in.reuse
	}
	p, diags := plan.Build(cfg, in.st, popts)
	if f := in.facts.Recount(); f != nil {
		// The places walk could not decide the block's plan (nothing
		// to enrich, say): the census of every enrichment can, over the
		// same people read, as plan builds it.
		in.facts, popts.Enrich = f, f
		p, diags = plan.Build(cfg, in.st, popts)
	}
	if err := in.facts.Err(); err != nil {
		return nil, nil, err
	}
	if !in.facts.NeedsEveryone() {
		if err := in.hold(); err != nil {
			return nil, nil, err
		}
		return p, diags, nil
	}
	if err := in.loadWhole(d); err != nil {
		return nil, nil, err
	}
	popts.Enrich, popts.Colleagues = nil, nil
	p, diags = plan.Build(cfg, in.st, popts)
	return p, diags, nil
}

// within checks the saved plan p, from the file name, against the plan
// made again (plan.Within) over the state in use, with the store's counts
// when it holds them: made at the time p was made (partialEnrich), from
// the census when the places walk cannot decide it (as build). When the
// people read cannot decide it, the state is loaded whole (in.st) and p
// checked against it.
func (in *applyRead) within(d Deps, name string, cfg *config.Config, p *plan.Plan) error {
	decided, err := p.WithinRead(name, cfg, in.st, in.facts, in.colleagues, in.expired)
	if f := in.facts.Recount(); err == nil && !decided && f != nil {
		// The places walk could not decide it: the census can (build).
		in.facts = f
		decided, err = p.WithinRead(name, cfg, in.st, f, in.colleagues, in.expired)
	}
	if err == nil {
		err = in.facts.Err()
	}
	if err != nil {
		return err
	}
	if decided {
		return in.hold()
	}
	if err := in.loadWhole(d); err != nil {
		return err
	}
	return p.Within(name, cfg, in.st)
}

// hold readies the partial state for the engine once the plan over it
// is made: it holds the people who take the places the limit leaves,
// read whole by the plan (the engine chooses among the people read), and
// lets the sketches go (EnrichFacts.LetSketchesGo): the engine reads
// their people whole when it first chooses people to enrich.
func (in *applyRead) hold() error {
	if err := in.facts.Hold(in.st); err != nil {
		return err
	}
	in.facts.LetSketchesGo(in.st)
	return nil
}

// loadWhole lets the partial state go and puts the state loaded whole in
// its place.
func (in *applyRead) loadWhole(d Deps) error {
	// The snapshot ends first: a load is a read of its own, at the
	// collector's own pace.
	in.restoreGC()
	if err := in.release(); err != nil {
		return err
	}
	st, err := d.Backend.Load()
	if err != nil {
		return err
	}
	in.st, in.release, in.facts, in.colleagues = st, noRelease, nil, nil
	return nil
}
