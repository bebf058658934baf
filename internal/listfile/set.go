package listfile

// Set is the keys of one column of a list file, by one kind: what an
// exclusion matches people against.
type Set struct {
	kind  Kind
	keys  map[string]struct{}
	empty int // rows whose cell was empty
}

// NewSet returns an empty set of keys of the kind.
func NewSet(kind Kind) *Set {
	return &Set{kind: kind, keys: map[string]struct{}{}}
}

// KeySet reads column col of t as values of the kind. Empty cells are
// skipped (and counted); a cell that cannot be of the kind is an error
// naming its row and column, all such rows at once.
func KeySet(t *Table, col int, kind Kind) (*Set, error) {
	s := &Set{kind: kind, keys: make(map[string]struct{}, len(t.Rows))}
	var probs Errors
	for _, r := range t.Rows {
		k, err := kind.Key(r.Cells[col])
		switch {
		case err != nil:
			probs.Add(&Error{File: t.File, Row: r.Line, Column: t.Columns[col], Msg: err.Error() + "; correct it or clear the cell"})
		case k == "":
			s.empty++
		default:
			s.keys[k] = struct{}{}
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
	s.keys[k] = struct{}{}
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
	_, ok := s.keys[k]
	return ok
}
