// Package knobs is what the sandbox can be told, apart from the sandbox
// itself: its defaults, its faults (Faults, their checks and their
// NAME=VALUE spelling of `leadsync sandbox --faults`, ParseFaults) and the
// range of its drift. It is a leaf, importing only the standard library,
// so that the command line's parser (internal/cli/arguments) checks these
// values as the sandbox does without importing the sandbox.
package knobs

import (
	"fmt"
	"math"
	"time"
)

// DefaultKey is the API key the sandbox accepts unless told otherwise. It
// is no secret: the sandbox prints it.
const DefaultKey = "sandbox-key"

// Defaults of the sandbox's options.
const (
	DefaultPeople  = 40000
	DefaultCredits = 1000
	DefaultQuota   = 10000
	DefaultSlowBy  = 60 * time.Second
)

// MaxEpoch is the largest epoch the sandbox's population reaches.
const MaxEpoch = 1000

// CheckDrift reports a drift share or an epoch the sandbox would clamp:
// the drift is a share from 0 to 1, the epoch 0 to MaxEpoch.
func CheckDrift(drift float64, epoch int) error {
	switch {
	case math.IsNaN(drift) || drift < 0 || drift > 1:
		return fmt.Errorf("drift %v: want a share of members between 0 and 1, e.g. 0.15", drift)
	case epoch < 0 || epoch > MaxEpoch:
		return fmt.Errorf("epoch %d: want 0 to %d", epoch, MaxEpoch)
	}
	return nil
}
