package arguments

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Forget is the command line of `leadsync forget`.
type Forget struct {
	State State
	// People are network IDs, page names, profile URLs or person.<id>
	// addresses; none is blank.
	People      []string
	LockTimeout time.Duration
	// AutoApprove erases without asking (--auto-approve).
	AutoApprove bool
}

// ForgetFlags are the flags of forget as given.
type ForgetFlags struct {
	State       State
	LockTimeout time.Duration
	AutoApprove bool
}

// Register declares the flags of forget on fs.
func (fl *ForgetFlags) Register(fs *pflag.FlagSet) {
	registerLockTimeout(fs, &fl.LockTimeout)
	fl.State.Register(fs)
	fs.BoolVar(&fl.AutoApprove, "auto-approve", false, "erase without asking for confirmation (needed when standard input is no terminal)")
}

// ErrBlankPerson is a PERSON of forget that is empty (run.ErrBlankPerson
// says the same to a caller of run.Forget).
var ErrBlankPerson = errors.New("forget: a PERSON is empty; give a network ID, a page name or a profile URL")

// ParseForget checks the command line of forget.
func ParseForget(fl ForgetFlags, args []string) (*Forget, error) {
	people, err := atLeastOne("leadsync forget", "PERSON...", args)
	if err != nil {
		return nil, err
	}
	for _, p := range people {
		if strings.TrimSpace(p) == "" {
			return nil, ErrBlankPerson
		}
	}
	if err := checkLockTimeout(fl.LockTimeout); err != nil {
		return nil, err
	}
	return &Forget{State: fl.State, People: people, LockTimeout: fl.LockTimeout, AutoApprove: fl.AutoApprove}, nil
}
