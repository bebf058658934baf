package run

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// ErrNoState is returned by StateRm when no state was ever written.
var ErrNoState = errors.New("no state yet")

// RemovedRecord is one address StateRm removed.
type RemovedRecord struct {
	Address string
	// Kind is one of the kinds that hold records (a search, a profile,
	// an import, a track, a person).
	Kind kind.Kind
	// Leads is how many people the record listed, for a kind whose words
	// count them (kind.Row.Counted): the leads of a search, the people an
	// import named or a track had read.
	Leads int
}

// StateRm removes records from the state as if their blocks had been
// removed from the configuration (person.<id> removes the person): under
// the state's lock it opens the state (a partial state where it can:
// only the records and the people they name are read), checks every
// address before changing anything (an unknown one is an
// *UnknownAddressError and nothing is written), applies the removals and
// commits. An address named twice is removed once. A block's address
// (search.cto) or a module's (module.dach) names every search and profile
// record of the state inside it.
func StateRm(d Deps, addresses []string) ([]RemovedRecord, error) {
	lock, s, done, err := lockWritable(d, "state rm")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	defer done()
	var all []string
	for _, addr := range addresses {
		if err := s.ReadRecord(addr); err != nil {
			return nil, err
		}
		if s.Kind(addr) != kind.None {
			all = append(all, addr)
			continue
		}
		// A block (search.cto) or a module (module.dach) names every
		// record inside it.
		inside := recordsIn(s, addr)
		if len(inside) == 0 {
			return nil, UnknownAddress(s, addr, ", so nothing was removed")
		}
		all = append(all, inside...)
	}
	for _, addr := range all {
		if err := s.ReadRecord(addr); err != nil {
			return nil, err
		}
	}
	if err := done(); err != nil {
		return nil, err
	}
	var removed []RemovedRecord
	for _, addr := range all {
		r := RemovedRecord{Address: addr, Kind: s.Kind(addr)}
		switch {
		case r.Kind == kind.None:
			continue // named twice: already removed
		case r.Kind == kind.Person:
			s.RemovePerson(strings.TrimPrefix(addr, state.PersonAddressPrefix))
			removed = append(removed, r)
			continue
		case r.Kind.Row().Counted != "":
			// A track's read times are forgotten: its people are due again.
			r.Leads = s.PeopleListed(addr)
		}
		removed = append(removed, r)
		if err := s.Fold(state.Event{At: d.now().UTC(), Kind: state.EventForget, Address: addr}); err != nil {
			return nil, err
		}
	}
	if err := d.Backend.Commit(s); err != nil {
		return nil, err
	}
	return removed, lock.release()
}

// recordsIn lists the search and profile records of s that the block or
// module address pattern names (address.Address.Contains), sorted.
func recordsIn(s *state.State, pattern string) []string {
	p, err := address.Parse(pattern)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range s.Addresses(false) {
		if x, err := address.Parse(a); err == nil && p.Contains(x) {
			out = append(out, a)
		}
	}
	return out
}

// UnknownAddressError says that the state holds nothing at an address (and,
// with Consequence, what followed from that), with the close addresses it
// does hold.
type UnknownAddressError struct {
	Address     string
	Consequence string
	// Near are the state's addresses close to Address (at most ten).
	Near []string
}

// UnknownAddress is the *UnknownAddressError of addr in s.
func UnknownAddress(s *state.State, addr, consequence string) *UnknownAddressError {
	var near []string
	base := address.Block(addr)
	for _, a := range s.Addresses(false) {
		if strings.HasPrefix(a, base) || levenshtein.Distance(addr, a, nil) <= 2 {
			near = append(near, a)
		}
	}
	if len(near) > 10 {
		near = nil
	}
	return &UnknownAddressError{Address: addr, Consequence: consequence, Near: near}
}

func (e *UnknownAddressError) Error() string {
	addr := e.Address
	msg := fmt.Sprintf("the state holds nothing at %s%s", addr, e.Consequence)
	if len(e.Near) > 0 {
		msg += "; did you mean " + strings.Join(e.Near, ", ") + "?"
	}
	if strings.Contains(addr, "[") && !strings.Contains(addr, `"`) {
		msg += ` (quote instance keys in the shell: 'search.cto["Berlin"]')`
	}
	// A person is never inside a module: module.x.person.y is no address.
	if k := address.Kind(addr); !k.HoldsRecords() || (k == kind.Person && !strings.HasPrefix(addr, state.PersonAddressPrefix)) {
		msg = sentence(msg, `Addresses look like search.cto, search.cto["Berlin"], profile.founder, module.dach.search.cto, import.crm, track.champions or person.<id>`)
	}
	return sentence(msg, `Run "leadsync state list" to see every address`)
}

// sentence appends the sentence next to msg: after a full stop, unless
// msg already ends with one or with a question mark (did you mean X?).
func sentence(msg, next string) string {
	if strings.HasSuffix(msg, "?") || strings.HasSuffix(msg, ".") {
		return msg + " " + next
	}
	return msg + ". " + next
}
