package local

import (
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// LedgerName is the file, beside the default workspace's state file, that
// holds what each API account spent per billing month, for every
// workspace of the working copy (leadsync { budget }); LedgerName+".lock"
// is locked while it is read and changed.
const LedgerName = "ledger.json"

// ledgerFormat is the version of the ledger file this build writes.
const ledgerFormat = 1

// ledgerFile is the content of the ledger file: accounts (api.AccountID,
// a hash: the key is never stored) -> months -> spending, and the holds
// of the runs (backend.Ledger's Hold) by run.
type ledgerFile struct {
	FormatVersion int                                    `json:"format_version"`
	Accounts      map[string]map[string]backend.Spending `json:"accounts"`
	Runs          map[string]ledgerRun                   `json:"runs,omitempty"`
	// Since is when the ledger first recorded a call of each account
	// (backend.Ledger's Since).
	Since map[string]time.Time `json:"since,omitempty"`
}

// ledgerRun is what one run holds for calls it has not sent yet: counted
// in its account's month too, and taken back from it when the run is
// settled.
type ledgerRun struct {
	Account   string           `json:"account"`
	Workspace string           `json:"workspace"`
	Month     string           `json:"month"`
	Held      backend.Spending `json:"held"`
}

// fileLedger is one account's ledger in the ledger file, as workspace
// sees it.
type fileLedger struct {
	path      string
	account   string
	workspace string
}

var _ backend.Ledger = (*fileLedger)(nil)

// Ledger is the ledger of account in the working copy's ledger file,
// shared by its workspaces: the backend.LedgerKeeper ability.
func (ws *Workspace) Ledger(account string) (backend.Ledger, error) {
	return &fileLedger{path: filepath.Join(filepath.Dir(ws.set.path), LedgerName), account: account, workspace: ws.name}, nil
}

func (l *fileLedger) Spent(month string) (backend.Spending, error) {
	var out backend.Spending
	err := l.update(func(f *ledgerFile) bool {
		out = f.Accounts[l.account][month]
		return false
	})
	return out, err
}

func (l *fileLedger) Reserve(month string, add, limit backend.Spending) (backend.Spending, bool, error) {
	return l.Hold("", month, add, limit)
}

func (l *fileLedger) Hold(run, month string, add, limit backend.Spending) (backend.Spending, bool, error) {
	var held backend.Spending
	ok := false
	err := l.update(func(f *ledgerFile) bool {
		held = f.Accounts[l.account][month]
		next := held.Plus(add)
		if (limit.Credits > 0 && next.Credits > limit.Credits) || (limit.Requests > 0 && next.Requests > limit.Requests) {
			return false
		}
		set(f, l.account, month, next)
		if f.Since[l.account].IsZero() && add != (backend.Spending{}) {
			if f.Since == nil {
				f.Since = map[string]time.Time{}
			}
			f.Since[l.account] = time.Now().UTC()
		}
		if run != "" {
			r, found := f.Runs[run]
			if !found {
				r = ledgerRun{Account: l.account, Workspace: l.workspace, Month: month}
			}
			r.Held = r.Held.Plus(add)
			if f.Runs == nil {
				f.Runs = map[string]ledgerRun{}
			}
			f.Runs[run] = r
		}
		held, ok = next, true
		return true
	})
	return held, ok, err
}

func (l *fileLedger) Sending(run string, s backend.Spending) error {
	return l.update(func(f *ledgerFile) bool {
		r, found := f.Runs[run]
		if !found {
			return false
		}
		r.Held = r.Held.Minus(s)
		f.Runs[run] = r
		return true
	})
}

func (l *fileLedger) Release(month string, sub backend.Spending) error {
	return l.update(func(f *ledgerFile) bool {
		set(f, l.account, month, f.Accounts[l.account][month].Minus(sub))
		return true
	})
}

func (l *fileLedger) Unhold(run string, sub backend.Spending) error {
	return l.update(func(f *ledgerFile) bool {
		r, found := f.Runs[run]
		if !found {
			return false
		}
		sub = backend.Spending{Credits: min(sub.Credits, r.Held.Credits), Requests: min(sub.Requests, r.Held.Requests)}
		r.Held = r.Held.Minus(sub)
		f.Runs[run] = r
		set(f, r.Account, r.Month, f.Accounts[r.Account][r.Month].Minus(sub))
		return true
	})
}

func (l *fileLedger) Settle(except string) (backend.Spending, error) {
	var released backend.Spending
	err := l.update(func(f *ledgerFile) bool {
		released = backend.Spending{}
		changed := false
		for id, r := range f.Runs {
			if id == except || r.Workspace != l.workspace {
				continue
			}
			set(f, r.Account, r.Month, f.Accounts[r.Account][r.Month].Minus(r.Held))
			if r.Account == l.account {
				released = released.Plus(r.Held)
			}
			delete(f.Runs, id)
			changed = true
		}
		return changed
	})
	return released, err
}

func (l *fileLedger) Open(month string) (backend.Spending, error) {
	var open backend.Spending
	err := l.update(func(f *ledgerFile) bool {
		for _, r := range f.Runs {
			if r.Workspace == l.workspace && r.Account == l.account && r.Month == month {
				open = open.Plus(r.Held)
			}
		}
		return false
	})
	return open, err
}

func (l *fileLedger) Since() (time.Time, error) {
	var since time.Time
	err := l.update(func(f *ledgerFile) bool {
		since = f.Since[l.account]
		return false
	})
	return since, err
}

// set sets what account spent in month.
func set(f *ledgerFile, account, month string, s backend.Spending) {
	if f.Accounts == nil {
		f.Accounts = map[string]map[string]backend.Spending{}
	}
	if f.Accounts[account] == nil {
		f.Accounts[account] = map[string]backend.Spending{}
	}
	f.Accounts[account][month] = s
}

// update reads the ledger under its lock file's lock, lets change edit
// it, and writes it back (a new file, renamed into place) when change says
// so. A ledger that cannot be read is an error, never an empty one: a
// budget must not forget what was spent.
func (l *fileLedger) update(change func(*ledgerFile) bool) error {
	lf := lockedFile{path: l.path, what: "the budget ledger", format: ledgerFormat,
		damaged: "it holds what this working copy spent per billing month; restore it from a backup, or remove it to start counting again"}
	return updateLocked(lf, func(f *ledgerFile) *int { return &f.FormatVersion }, change)
}
