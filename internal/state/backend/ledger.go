package backend

// Spending is what an API account spent in one billing month: enrich
// credits and requests of the monthly quota.
type Spending struct {
	Credits  int `json:"credits"`
	Requests int `json:"requests"`
}

// Ledger is what one API account spent, month by month, as every run,
// teammate and workspace of a store records it (the budget of leadsync {
// budget }). Months are named by the date their billing month starts
// (2026-11-17). A call is reserved before it is made, so that two runs at
// the same time never pass a limit together; what a call did not spend is
// released (a call not sent, an enrichment that certainly failed); what
// it may have spent stays.
type Ledger interface {
	// Spent is what the month holds so far.
	Spent(month string) (Spending, error)
	// Reserve adds add to the month unless that would pass limit (a limit
	// of 0 is none): then it adds nothing and ok is false. It returns what
	// the month holds afterwards, atomically with the check.
	Reserve(month string, add, limit Spending) (held Spending, ok bool, err error)
	// Release takes back part of a reservation that was not spent.
	Release(month string, sub Spending) error
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
