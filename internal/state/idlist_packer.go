package state

import (
	"unsafe"
)

// The slabs a ListPacker cuts its lists from: a lead list of 300 IDs of 14
// characters is 4,200 bytes, which an allocation of its own rounds up to
// 4,864 (its size class); its 300 ends of 1,200 bytes to 1,280.
const (
	textSlab = 1 << 20 // bytes
	endsSlab = 1 << 16 // ends
)

// ListPacker packs many lists, one after another, into shared slabs: the
// store's reader packs the lead lists of one read so (sqlstate). Each list
// is Begin, Add for each ID, End. A list whose IDs all have the same
// length keeps no ends (FixedIDs).
type ListPacker struct {
	text []byte   // the current text slab: its IDs so far, room after them
	ends []uint32 // the current slab of ends
	from int      // where the list being packed starts in text
	list []uint32 // its ends so far, from its start
}

// Begin starts a list of size bytes of IDs in all.
func (p *ListPacker) Begin(size int) {
	if cap(p.text)-len(p.text) < size {
		p.text = make([]byte, 0, max(size, textSlab))
	}
	p.from, p.list = len(p.text), p.list[:0]
}

// Add appends id to the list begun.
func (p *ListPacker) Add(id string) {
	p.text = append(p.text, id...)
	p.list = append(p.list, uint32(len(p.text)-p.from))
}

// End is the list begun, packed. Its text is the slab's bytes, which are
// written once (Add) before it is made and never after.
func (p *ListPacker) End() IDList {
	n := len(p.text) - p.from
	text := ""
	if n > 0 {
		text = unsafe.String(&p.text[p.from], n)
	}
	if w := fixedWidth(p.list); w > 0 {
		return FixedIDs(text, w)
	}
	if cap(p.ends)-len(p.ends) < len(p.list) {
		p.ends = make([]uint32, 0, max(len(p.list), endsSlab))
	}
	at := len(p.ends)
	p.ends = append(p.ends, p.list...)
	return PackedIDs(text, p.ends[at:len(p.ends):len(p.ends)])
}

// fixedWidth is the length of every ID whose ends are ends, 0 when they
// differ, are empty, or there is none.
func fixedWidth(ends []uint32) int {
	if len(ends) == 0 || ends[0] == 0 {
		return 0
	}
	w := ends[0]
	for i, end := range ends {
		if end != uint32(i+1)*w {
			return 0
		}
	}
	return int(w)
}
