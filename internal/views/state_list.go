package views

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
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

// StateAddresses yields the addresses of the state b as state list shows
// them: searches, then profiles, imports and tracks, then (with people)
// people as person.<id>, read from the store a page at a time; with
// prefixes, only those that start with one of them. A store's error
// comes last, with an empty address.
func StateAddresses(b *state.Base, people bool, prefixes []string) iter.Seq2[StateAddress, error] {
	return func(yield func(StateAddress, error) bool) {
		for a, err := range addressParts(b, people, prefixes) {
			if !yield(StateAddress{Address: a.prefix + a.name, Kind: a.kind}, err) {
				return
			}
		}
	}
}

// addressPart is an address of StateAddresses in two parts, so that a
// person's is never joined into a new string: state list writes them one
// after the other (3,000,000 allocations less at 3,000,000 people).
type addressPart struct {
	prefix string // state.PersonAddressPrefix for a person, else ""
	name   string // the rest: the whole address but a person's
	kind   kind.Kind
}

// addressParts yields what StateAddresses yields, each address in two
// parts.
func addressParts(b *state.Base, people bool, prefixes []string) iter.Seq2[addressPart, error] {
	return func(yield func(addressPart, error) bool) {
		for _, h := range b.Records.AddressKinds() {
			if matchesPrefix("", h.Address, prefixes) && !yield(addressPart{name: h.Address, kind: h.Kind}, nil) {
				return
			}
		}
		tracks, err := b.TrackAddresses()
		if err != nil {
			yield(addressPart{}, err)
			return
		}
		for _, addr := range tracks {
			if matchesPrefix("", addr, prefixes) && !yield(addressPart{name: addr, kind: kind.Track}, nil) {
				return
			}
		}
		if !people || !anyPersonPrefix(prefixes) {
			return
		}
		for id, err := range b.PersonIDs() {
			if err != nil {
				yield(addressPart{}, err)
				return
			}
			if matchesPrefix(state.PersonAddressPrefix, id, prefixes) && !yield(addressPart{prefix: state.PersonAddressPrefix, name: id, kind: kind.Person}, nil) {
				return
			}
		}
	}
}

// anyPersonPrefix reports whether a person's address can start with one
// of prefixes (none: every address).
func anyPersonPrefix(prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(p, state.PersonAddressPrefix) || strings.HasPrefix(state.PersonAddressPrefix, p) {
			return true
		}
	}
	return false
}

// matchesPrefix reports whether the address prefix+name starts with one
// of prefixes (none: every address), without joining the two.
func matchesPrefix(prefix, name string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if len(p) <= len(prefix) && strings.HasPrefix(prefix, p) ||
			len(p) > len(prefix) && strings.HasPrefix(p, prefix) && strings.HasPrefix(name, p[len(prefix):]) {
			return true
		}
	}
	return false
}

// StateList is the view of `leadsync state list`.
type StateList interface {
	// List writes the addresses of b StateAddresses yields.
	List(b *state.Base, people bool, prefixes []string) error
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

func (v stateListHuman) List(b *state.Base, people bool, prefixes []string) error {
	w := bufio.NewWriterSize(v.w, 64<<10)
	for a, err := range addressParts(b, people, prefixes) {
		if err != nil {
			w.Flush()
			return err
		}
		w.WriteString(a.prefix)
		w.WriteString(a.name)
		w.WriteByte('\n')
	}
	return w.Flush()
}

// StateListJSON is the --json form of state list.
type StateListJSON struct {
	FormatVersion string         `json:"format_version"`
	Addresses     []StateAddress `json:"addresses"`
}

type stateListJSON struct{ w io.Writer }

// List writes what writeJSONDoc writes of a StateListJSON, one address at
// a time: a state of millions of people is never one list in memory.
func (v stateListJSON) List(b *state.Base, people bool, prefixes []string) error {
	w := bufio.NewWriterSize(v.w, 64<<10)
	w.WriteString("{\n  \"format_version\": \"1\",\n  \"addresses\": [")
	n := 0
	for a, err := range addressParts(b, people, prefixes) {
		if err != nil {
			w.Flush()
			return err
		}
		if n > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    {\n      \"address\": ")
		writeJSONString(w, a.prefix+a.name)
		w.WriteString(",\n      \"kind\": ")
		writeJSONString(w, string(a.kind))
		w.WriteString("\n    }")
		n++
	}
	if n > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]\n}\n")
	return w.Flush()
}

// writeJSONString writes t as encoding/json writes a string without HTML
// escapes: as it is, quoted, when nothing in it needs an escape.
func writeJSONString(w *bufio.Writer, t string) {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(t)
			w.WriteString(strings.TrimSuffix(b.String(), "\n"))
			return
		}
	}
	w.WriteByte('"')
	w.WriteString(t)
	w.WriteByte('"')
}
