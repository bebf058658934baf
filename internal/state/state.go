package state

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// PagePrefix starts the ID of a person whose networkId is not known yet.
const PagePrefix = "page:"

// anonPrefix starts the ID of a lead that carries neither a networkId nor a
// page name (the service should never send one, but a lead must not be lost
// or merged with another one because of that).
const anonPrefix = "anon:"

// New returns an empty state with a fresh lineage. Its maps are never nil.
func New() *State {
	return &State{
		FormatVersion: FormatVersion,
		Lineage:       NewUUID(),
		Searches:      map[string]*Search{},
		Profiles:      map[string]*ProfileRead{},
		People:        map[string]*Person{},
		Failures:      map[string]*Failure{},
		Suppressed:    []*Suppression{},
	}
}

// NewUUID returns a random (version 4) UUID: lineages, and the IDs of
// journals, locks and workspace epochs.
func NewUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on supported platforms (it panics itself
		// since Go 1.24); keep the compiler and readers calm.
		panic("leadsync: crypto/rand: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// PersonID is the ID a lead is kept under: its networkId when known, else
// "page:" and its page name. A lead with neither gets "anon:" and a hash of
// its visible fields, so that it is neither lost nor merged with another.
//
// Fold resolves leads without a networkId through the page names of known
// people first, so the key a lead ends up under in a State is
// (*State).Resolve, not always PersonID.
func PersonID(l person.Lead) string {
	if l.NetworkID != "" {
		return l.NetworkID
	}
	if l.PageName != "" {
		return PagePrefix + l.PageName
	}
	h := sha256.Sum256(identityText(&l))
	return anonPrefix + hex.EncodeToString(h[:8])
}

// identityText is what PersonID hashes for a lead with no networkId and no
// page name: the lead fields whose row in person.PersonFields has Identity, in
// the order of Lead's fields, joined by zero bytes.
func identityText(l *person.Lead) []byte {
	var b []byte
	first := true
	for _, f := range person.LeadFields {
		if !f.Identity {
			continue
		}
		if !first {
			b = append(b, 0)
		}
		first = false
		b = append(b, *f.Lead(l)...)
	}
	return b
}

// RequestHash is the hex SHA-256 of the generation and the canonical form of
// a request body (object keys sorted, insignificant space removed, numbers
// as written), so that the same request always hashes the same however it
// was formatted. A body that is not JSON is hashed as it is.
func RequestHash(gen api.Generation, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "leadsync-request/1 generation=%d\n", int(gen))
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON returns body with object keys sorted and no insignificant
// space; numbers keep their literal form. Invalid JSON is returned as is.
func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	if _, err := dec.Token(); err == nil {
		return body // trailing data: not one JSON value
	}
	var buf bytes.Buffer
	writeCanonical(&buf, v)
	return buf.Bytes()
}

func writeCanonical(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			writeCanonical(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case json.Number:
		buf.WriteString(string(v))
	default:
		b, _ := json.Marshal(v) // string, bool, nil: cannot fail
		buf.Write(b)
	}
}

// normalize makes a decoded or hand-built state usable: nil maps become
// empty ones and the lookup index is dropped so that it is rebuilt.
func (s *State) normalize() {
	if s.Searches == nil {
		s.Searches = map[string]*Search{}
	}
	if s.Profiles == nil {
		s.Profiles = map[string]*ProfileRead{}
	}
	if s.People == nil {
		s.People = map[string]*Person{}
	}
	if s.Failures == nil {
		s.Failures = map[string]*Failure{}
	}
	if s.Suppressed == nil {
		s.Suppressed = []*Suppression{}
	}
	s.idx = nil
	s.sup, s.supLen = nil, 0
}

// IsEmpty reports whether s holds no result: no search, no profile read and
// nobody. A state can be empty and still have a serial, failures, usage or
// a suppression list (everyone in it forgotten).
func (s *State) IsEmpty() bool {
	return len(s.Searches) == 0 && len(s.Profiles) == 0 && len(s.People) == 0
}
