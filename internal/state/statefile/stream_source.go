package statefile

import (
	"errors"
	"io"
	"strings"
	"unsafe"

	"github.com/leadsync/leadsync/internal/state"
)

// ErrLayout is returned by FileStream.People when the file's people are
// not laid out as leadsync writes them (one a line, the last key of the
// state; stream.go): the file is then read whole (Decode), which takes
// any layout and names the place of a problem.
var ErrLayout = errors.New("the state file's people are not laid out as leadsync writes them")

// FileStream is a state file read in two parts (state push): the header,
// everything before the people, decoded at once, and the people decoded a
// piece (about a megabyte) at a time on every core, in file order, each
// piece handed over as it is decoded and never kept.
type FileStream struct {
	r      io.ReaderAt
	size   int64
	header *state.State
	from   int64 // where the people start, after their opening brace
}

// OpenFileStream reads the header of the state file of size bytes that r
// reads; nil without error when the file is to be read whole: smaller
// than the size from which DecodeReaderAt streams, not in leadsync's
// layout, or of a newer format (Decode refuses it).
func OpenFileStream(r io.ReaderAt, size int64) (*FileStream, error) {
	if size < minStream {
		return nil, nil
	}
	in := &pieceReader{r: r, size: size}
	head, err := in.head()
	if err != nil || head == nil {
		return nil, err
	}
	src := append(head, "}\n}"...)
	d := &decoder{src: unsafe.String(unsafe.SliceData(src), len(src)), peopleAt: -1}
	s, err := d.state()
	if err != nil || d.peopleAt != len(head)-1 || d.peopleKeys != 1 || len(s.People) != 0 || s.FormatVersion > state.FormatVersion {
		return nil, nil
	}
	return &FileStream{r: r, size: size, header: s, from: in.off}, nil
}

// Header is the state without its people (not checked: see state.CheckHeader).
func (f *FileStream) Header() *state.State { return f.header }

// People passes the people to fn a piece at a time, in file order, each
// person checked by state.CheckPerson; ErrLayout when the file turns out
// not to be in leadsync's layout (fn may have had some pieces by then).
func (f *FileStream) People(fn func([]*state.Person) error) error {
	in := &pieceReader{r: f.r, size: f.size, off: f.from}
	var batch []*state.Person
	tail, ok, err := in.eachPiece(func(_ *piece, entries []personEntry) error {
		batch = batch[:0]
		for _, e := range entries {
			batch = append(batch, e.p)
		}
		return fn(batch)
	})
	if err != nil {
		return err
	}
	if !ok || strings.TrimSpace(tail) != "}" {
		return ErrLayout
	}
	return nil
}
