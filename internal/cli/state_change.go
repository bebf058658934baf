package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

// changeState opens the state st names for a command that changes what it
// holds by hand (state mv, state rm) and runs op on it, which prints what
// it did. A state that does not exist yet is one error, "no state at ...
// yet: nothing to <nothing>", said before the lock is taken (taking it
// would create the directory) and when op finds none (run.ErrNoState).
// Once op succeeds, where the state before is kept is said.
func changeState(f *Factory, st arguments.State, lockTimeout time.Duration, nothing string, op func(run.Deps) error) error {
	src, err := openStateSource(f, st)
	if err != nil {
		return err
	}
	defer src.close()
	noState := fmt.Errorf("no state at %s yet: nothing to %s", src.describe(f), nothing)
	if backend.KnownAbsent(src.backend) {
		return noState // before taking the lock, which would create the directory
	}
	err = op(stateDeps(f, src, lockTimeout))
	if errors.Is(err, run.ErrNoState) {
		return noState
	}
	if err != nil {
		return err
	}
	if bk, ok := backend.BackupOf(src.backend); ok && backend.BacksUpEachWrite(src.backend) {
		return views.NewStateChange(f.IO.Out).BackupKept(stateRelPath(f, bk.BackupPath()))
	}
	return nil
}

// loadBase opens the state of st for a command that asks for what it
// needs (state.Base): the caller closes both.
func loadBase(f *Factory, st arguments.State) (*stateSource, *state.Base, error) {
	return baseOn(openStateSource(f, st))
}
