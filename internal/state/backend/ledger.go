package backend

import "time"

// Spending is what an API account spent in one billing month: enrich
// credits and requests of the monthly quota.
type Spending struct {
	Credits  int `json:"credits"`
	Requests int `json:"requests"`
}

// Plus is s and t added.
func (s Spending) Plus(t Spending) Spending {
	return Spending{Credits: s.Credits + t.Credits, Requests: s.Requests + t.Requests}
}

// Minus is t taken from s, never below zero.
func (s Spending) Minus(t Spending) Spending {
	return Spending{Credits: max(s.Credits-t.Credits, 0), Requests: max(s.Requests-t.Requests, 0)}
}

// Ledger is what one API account spent, month by month, as every run,
// teammate and workspace of a store records it (the budget of leadsync {
// budget }). Months are named by the date their billing month starts
// (2026-11-17). A call is reserved before it is made, so that two runs at
// the same time never pass a limit together; what a call did not spend is
// released (a call not sent, an enrichment that certainly failed); what
// it may have spent stays.
//
// A run's reservations are held in its name (Hold) until the call is
// about to be sent (Sending): a run that dies (kill -9, a lost session)
// leaves holds for calls it never sent, which the next command under the
// workspace's lock gives back (Settle). So the ledger counts only the
// calls that were sent, charged or of unknown outcome, and never a dead
// run's reservation for calls it did not make. A ledger is its
// workspace's: Hold, Settle and Open are of the runs of that workspace.
type Ledger interface {
	// Spent is what the month holds so far, the holds of runs included.
	Spent(month string) (Spending, error)
	// Reserve adds add to the month unless that would pass limit (a limit
	// of 0 is none): then it adds nothing and ok is false. It returns what
	// the month holds afterwards, atomically with the check. What Reserve
	// adds is spent (a call already made): no run holds it.
	Reserve(month string, add, limit Spending) (held Spending, ok bool, err error)
	// Release takes back part of a reservation that was not spent.
	Release(month string, sub Spending) error
	// Hold is Reserve in the name of run (unique to one run of this
	// workspace): what it adds is held for calls not sent yet.
	Hold(run, month string, add, limit Spending) (held Spending, ok bool, err error)
	// Sending says that s of run's hold is about to be sent: it is no
	// longer held, and stays in the month (charged or of unknown outcome)
	// unless Release takes it back.
	Sending(run string, s Spending) error
	// Unhold takes back part of run's hold, for a call that was not sent.
	Unhold(run string, sub Spending) error
	// Settle takes back what the runs of this workspace, other than
	// except, still hold, and forgets those runs. It is called with the
	// workspace's lock held (no other run of it is alive), and by a run
	// that ends, for itself (except "").
	Settle(except string) (released Spending, err error)
	// Open is what the runs of this workspace still hold in month: what
	// Settle would take back were they all dead.
	Open(month string) (Spending, error)
	// Since is when the ledger first recorded a call of the account (a
	// Hold or Reserve), zero when it never did: what the account spent
	// before, or with other tools, is not in it. Every run records its
	// calls, with a budget or without.
	Since() (time.Time, error)
}

// LedgerKeeper is a backend that keeps the spending of API accounts
// across its workspaces (the working copy's ledger file, the pg backend's
// table): budgets hold across runs, teammates and workspaces.
type LedgerKeeper interface {
	Ledger(account string) (Ledger, error)
}

// LedgerOf returns the ledger of account that b (or the backend it wraps)
// keeps, ok false when it keeps none.
func LedgerOf(b Backend, account string) (Ledger, bool, error) {
	if k, ok := abilityOf[LedgerKeeper](b); ok {
		l, err := k.Ledger(account)
		return l, err == nil, err
	}
	return nil, false, nil
}
