package listfile

import "hash/maphash"

// Set is the keys of one column of a list file, by one kind: what an
// exclusion matches people against.
//
// A plan asks a set about every candidate of its enrich blocks (hundreds
// of thousands), nearly all of them not in it. A Bloom filter of the keys
// (two bits a key, at least 16 bits of filter a key: 2 % false positives;
// 8 kB to 2 MB, which stays in the processor's cache) answers most of
// those without a look into the map, whose keys lie all over the heap.
type Set struct {
	kind   Kind
	keys   map[string]struct{}
	empty  int // rows whose cell was empty
	filter []uint64
	mask   uint64 // the filter's bits - 1
}

// Bounds of a set's filter, in bits (powers of two).
const (
	minFilterBits = 1 << 16
	maxFilterBits = 1 << 24
)

// seed hashes keys for the filters of this process.
var seed = maphash.MakeSeed()

// NewSet returns an empty set of keys of the kind.
func NewSet(kind Kind) *Set {
	return newSet(kind, 0)
}

// newSet returns an empty set whose filter is sized for about n keys.
func newSet(kind Kind, n int) *Set {
	bits := uint64(minFilterBits)
	for bits < maxFilterBits && bits < 16*uint64(n) {
		bits <<= 1
	}
	return &Set{kind: kind, keys: make(map[string]struct{}, n), filter: make([]uint64, bits/64), mask: bits - 1}
}

// put adds a key.
func (s *Set) put(k string) {
	s.keys[k] = struct{}{}
	h := maphash.String(seed, k)
	a, b := h&s.mask, (h>>32)&s.mask
	s.filter[a/64] |= 1 << (a % 64)
	s.filter[b/64] |= 1 << (b % 64)
}

// mayHave reports whether the key with hash h may be in the set: false
// is certain.
func (s *Set) mayHave(h uint64) bool {
	a, b := h&s.mask, (h>>32)&s.mask
	return s.filter[a/64]&(1<<(a%64)) != 0 && s.filter[b/64]&(1<<(b%64)) != 0
}

// KeySet reads column col of t as values of the kind. Empty cells are
// skipped (and counted); a cell that cannot be of the kind is an error
// naming its row and column, all such rows at once.
func KeySet(t *Table, col int, kind Kind) (*Set, error) {
	s := newSet(kind, len(t.Rows))
	var probs Errors
	for _, r := range t.Rows {
		k, err := kind.Key(r.Cells[col])
		switch {
		case err != nil:
			probs.Add(&Error{File: t.File, Sheet: r.Sheet, Row: r.Line, Column: t.Columns[col], Msg: err.Error() + "; correct it or clear the cell"})
		case k == "":
			s.empty++
		default:
			s.put(k)
		}
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Kind is the kind of the set's keys.
func (s *Set) Kind() Kind { return s.kind }

// Len is the number of distinct keys.
func (s *Set) Len() int { return len(s.keys) }

// Empty is the number of rows whose cell was empty.
func (s *Set) Empty() int { return s.empty }

// Add adds the key of a value; it reports false when the value is empty
// or cannot be of the set's kind.
func (s *Set) Add(v string) bool {
	k, err := s.kind.Key(v)
	if err != nil || k == "" {
		return false
	}
	s.put(k)
	return true
}

// Has reports whether the value's key is in the set. An empty value, or
// one that cannot be of the kind, is in no set.
func (s *Set) Has(v string) bool {
	k, err := s.kind.Key(v)
	if err != nil || k == "" {
		return false
	}
	return s.HasKey(k)
}

// HasKey reports whether a key (from Kind.Key of the set's kind) is in the
// set.
func (s *Set) HasKey(k string) bool {
	if !s.mayHave(maphash.String(seed, k)) {
		return false
	}
	_, ok := s.keys[k]
	return ok
}

// HasBytes is HasKey of a key in a byte slice (looked up without a copy).
func (s *Set) HasBytes(k []byte) bool {
	if !s.mayHave(maphash.Bytes(seed, k)) {
		return false
	}
	_, ok := s.keys[string(k)]
	return ok
}
