package state

import (
	"iter"
	"sort"
	"strings"
)

// IDList is a list of person IDs in order: a search's lead list as a plan
// reads it (Search.Leads). It is either a slice of strings (LeadIDs) or
// packed: one text holding the IDs end to end and the end of each in it,
// or, when every ID has the same length, that width alone. At 3,000,000
// lead IDs of 14 characters the packed form takes 14 bytes an ID in fixed
// width, 18 with ends, and holds no pointer for the collector to follow;
// 3,000,000 strings in slices took 33 bytes an ID (docs/performance.md,
// "Lead lists packed" and "The lead lists packed (twelfth round)").
type IDList struct {
	strs   []string
	text   string
	ends   []uint32 // the end of each ID in text; nil in fixed width
	start  uint32   // the start of the first ID in text
	width  uint32   // every ID's length in fixed width (then text holds exactly the IDs), else 0
	packed bool
}

// IDsOf is the list of ids (the slice itself, not a copy).
func IDsOf(ids []string) IDList { return IDList{strs: ids} }

// PackIDs is the packed list of ids: one new text, and their ends unless
// every ID has the same length.
func PackIDs(ids []string) IDList {
	size, width := 0, commonWidth(ids)
	for _, id := range ids {
		size += len(id)
	}
	var b strings.Builder
	b.Grow(size)
	var ends []uint32
	if width == 0 {
		ends = make([]uint32, len(ids))
	}
	for i, id := range ids {
		b.WriteString(id)
		if width == 0 {
			ends[i] = uint32(b.Len())
		}
	}
	if width > 0 {
		return FixedIDs(b.String(), width)
	}
	return IDList{text: b.String(), ends: ends, packed: true}
}

// commonWidth is the length every ID of ids has, 0 when they differ, or
// are empty, or there is none.
func commonWidth(ids []string) int {
	if len(ids) == 0 {
		return 0
	}
	for _, id := range ids {
		if len(id) != len(ids[0]) {
			return 0
		}
	}
	return len(ids[0])
}

// PackedIDs is the packed list of the IDs that text holds end to end,
// ends giving the end of each (the first starts at 0). The store's reader
// builds them from its rows (sqlstate).
func PackedIDs(text string, ends []uint32) IDList {
	if ends == nil {
		ends = []uint32{}
	}
	return IDList{text: text, ends: ends, packed: true}
}

// FixedIDs is the packed list of the IDs that text holds end to end, each
// of width bytes (width > 0; len(text) a multiple of it).
func FixedIDs(text string, width int) IDList {
	return IDList{text: text, width: uint32(width), packed: true}
}

// Len is the number of IDs.
func (l IDList) Len() int {
	if l.width > 0 {
		return len(l.text) / int(l.width)
	}
	if l.packed {
		return len(l.ends)
	}
	return len(l.strs)
}

// At is the i-th ID: a part of the packed text, no copy.
func (l IDList) At(i int) string {
	if !l.packed {
		return l.strs[i]
	}
	if w := int(l.width); w > 0 {
		return l.text[i*w : (i+1)*w]
	}
	start := l.start
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.text[start:l.ends[i]]
}

// All yields each ID with its index, in order.
func (l IDList) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		if !l.packed {
			for i, id := range l.strs {
				if !yield(i, id) {
					return
				}
			}
			return
		}
		if w := int(l.width); w > 0 {
			for i := 0; i*w < len(l.text); i++ {
				if !yield(i, l.text[i*w:(i+1)*w]) {
					return
				}
			}
			return
		}
		start := l.start
		for i, end := range l.ends {
			if !yield(i, l.text[start:end]) {
				return
			}
			start = end
		}
	}
}

// Head is the list of the first n IDs (n <= Len).
func (l IDList) Head(n int) IDList {
	if !l.packed {
		l.strs = l.strs[:n]
		return l
	}
	if w := int(l.width); w > 0 {
		l.text = l.text[:n*w]
		return l
	}
	l.ends = l.ends[:n]
	return l
}

// Tail is the list of the IDs from the j-th on (j <= Len).
func (l IDList) Tail(j int) IDList {
	if !l.packed {
		l.strs = l.strs[j:]
		return l
	}
	if w := int(l.width); w > 0 {
		l.text = l.text[j*w:]
		return l
	}
	if j > 0 {
		l.start = l.ends[j-1]
	}
	l.ends = l.ends[j:]
	return l
}

// AppendTo appends the IDs to dst.
func (l IDList) AppendTo(dst []string) []string {
	if !l.packed {
		return append(dst, l.strs...)
	}
	for _, id := range l.All() {
		dst = append(dst, id)
	}
	return dst
}

// Strings are the IDs as a slice: LeadIDs itself for a list of strings, a
// new slice (of parts of the text) for a packed one.
func (l IDList) Strings() []string {
	if !l.packed {
		return l.strs
	}
	return l.AppendTo(make([]string, 0, l.Len()))
}

// Leads are the lead IDs of s: LeadIDs, or the packed list a plan's
// Base.Reading read in their place.
func (s *Search) Leads() IDList {
	if s.Packed != nil {
		return *s.Packed
	}
	return IDList{strs: s.LeadIDs}
}

// Kept is the number of lead IDs of s (Leads).
func (s *Search) Kept() int { return s.Leads().Len() }

// Packed reports whether l is packed (one text, and its ends or width).
func (l IDList) Packed() bool { return l.packed }

// Equal reports whether l and o hold the same IDs in the same order,
// packed or not (go-cmp compares lists so).
func (l IDList) Equal(o IDList) bool {
	if l.Len() != o.Len() {
		return false
	}
	for i, id := range l.All() {
		if o.At(i) != id {
			return false
		}
	}
	return true
}

// Search is the index of id in l, sorted, and whether l holds it there;
// else where it would go (slices.BinarySearch over Strings, without the
// slice: a plan of retention holds 1,000,000 IDs so).
func (l IDList) Search(id string) (int, bool) {
	n := l.Len()
	i := sort.Search(n, func(h int) bool { return l.At(h) >= id })
	return i, i < n && l.At(i) == id
}

// Sorted reports whether l is sorted, each ID once.
func (l IDList) Sorted() bool {
	for i := 1; i < l.Len(); i++ {
		if l.At(i) <= l.At(i-1) {
			return false
		}
	}
	return true
}

// Without is l less the IDs drop reports, packed (PackIDs); l itself when
// it holds none of them.
func (l IDList) Without(drop func(id string) bool) IDList {
	kept, dropped := make([]string, 0, l.Len()), false
	for _, id := range l.All() {
		if drop(id) {
			dropped = true
		} else {
			kept = append(kept, id)
		}
	}
	if !dropped {
		return l
	}
	return PackIDs(kept)
}
