package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
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
// a hash: the key is never stored) -> months -> spending.
type ledgerFile struct {
	FormatVersion int                                    `json:"format_version"`
	Accounts      map[string]map[string]backend.Spending `json:"accounts"`
}

// fileLedger is one account's ledger in the ledger file.
type fileLedger struct {
	path    string
	account string
}

var _ backend.Ledger = (*fileLedger)(nil)

// Ledger is the ledger of account in the working copy's ledger file,
// shared by its workspaces: the backend.LedgerKeeper ability.
func (ws *Workspace) Ledger(account string) (backend.Ledger, error) {
	return &fileLedger{path: filepath.Join(filepath.Dir(ws.set.path), LedgerName), account: account}, nil
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
	var held backend.Spending
	ok := false
	err := l.update(func(f *ledgerFile) bool {
		held = f.Accounts[l.account][month]
		next := backend.Spending{Credits: held.Credits + add.Credits, Requests: held.Requests + add.Requests}
		if (limit.Credits > 0 && next.Credits > limit.Credits) || (limit.Requests > 0 && next.Requests > limit.Requests) {
			return false
		}
		l.set(f, month, next)
		held, ok = next, true
		return true
	})
	return held, ok, err
}

func (l *fileLedger) Release(month string, sub backend.Spending) error {
	return l.update(func(f *ledgerFile) bool {
		held := f.Accounts[l.account][month]
		held.Credits = max(held.Credits-sub.Credits, 0)
		held.Requests = max(held.Requests-sub.Requests, 0)
		l.set(f, month, held)
		return true
	})
}

func (l *fileLedger) set(f *ledgerFile, month string, s backend.Spending) {
	if f.Accounts == nil {
		f.Accounts = map[string]map[string]backend.Spending{}
	}
	if f.Accounts[l.account] == nil {
		f.Accounts[l.account] = map[string]backend.Spending{}
	}
	f.Accounts[l.account][month] = s
}

// update reads the ledger under its lock file's lock, lets change edit
// it, and writes it back (a new file, renamed into place) when change says
// so. A ledger that cannot be read is an error, never an empty one: a
// budget must not forget what was spent.
func (l *fileLedger) update(change func(*ledgerFile) bool) error {
	if err := safefile.EnsureDir(filepath.Dir(l.path)); err != nil {
		return err
	}
	lf, err := os.OpenFile(l.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := filelock.Lock(lf); err != nil {
		return err
	}
	defer filelock.Unlock(lf)
	var f ledgerFile
	b, err := os.ReadFile(l.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the budget ledger %s: %w", l.path, safefile.UnwrapPathErr(err))
	default:
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("the budget ledger %s is damaged (%v): it holds what this working copy spent per billing month; restore it from a backup, or remove it to start counting again", l.path, err)
		}
		if f.FormatVersion > ledgerFormat {
			return fmt.Errorf("the budget ledger %s was written by a newer leadsync (format %d); upgrade leadsync", l.path, f.FormatVersion)
		}
	}
	if !change(&f) {
		return nil
	}
	f.FormatVersion = ledgerFormat
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(l.path, append(out, '\n'))
}
