package views

import (
	"io"
	"strings"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// StateAddress is one address of the state and what it holds: one of the
// kinds that hold records (kind.Kind.HoldsRecords).
type StateAddress struct {
	Address string    `json:"address"`
	Kind    kind.Kind `json:"kind"`
}

// StateAddresses lists the addresses of s as state list shows them:
// searches, then profiles, imports and tracks, then (with people) people
// as person.<id>; with prefixes, only those that start with one of them.
func StateAddresses(s *state.State, people bool, prefixes []string) []StateAddress {
	all := s.Addresses(people)
	out := make([]StateAddress, 0, len(all))
	for _, addr := range all {
		if matchesPrefix(addr, prefixes) {
			out = append(out, StateAddress{Address: addr, Kind: s.Kind(addr)})
		}
	}
	return out
}

func matchesPrefix(addr string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(addr, p) {
			return true
		}
	}
	return false
}

// StateList is the view of `leadsync state list`.
type StateList interface {
	List(addrs []StateAddress) error
}

// NewStateList returns the JSON or the human view of state list, writing
// to w.
func NewStateList(w io.Writer, asJSON bool) StateList {
	if asJSON {
		return stateListJSON{w}
	}
	return stateListHuman{w}
}

var (
	_ StateList = stateListHuman{}
	_ StateList = stateListJSON{}
)

// stateListHuman prints one address per line.
type stateListHuman struct{ w io.Writer }

func (v stateListHuman) List(addrs []StateAddress) error {
	w := newLineWriter(v.w)
	for _, a := range addrs {
		w.printf("%s\n", a.Address)
	}
	return w.flush()
}

// StateListJSON is the --json form of state list.
type StateListJSON struct {
	FormatVersion string         `json:"format_version"`
	Addresses     []StateAddress `json:"addresses"`
}

type stateListJSON struct{ w io.Writer }

func (v stateListJSON) List(addrs []StateAddress) error {
	return writeJSONDoc(v.w, StateListJSON{FormatVersion: "1", Addresses: addrs})
}
