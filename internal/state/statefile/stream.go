package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// Why a large state file is streamed rather than read whole: the state's
// strings are a small part of the file (keys, quotes, times and JSON
// punctuation are most of it), yet a state decoded from the whole file in
// memory keeps all of it, because its strings point into the file's
// bytes. A state file of 600,000 people (bench/bigplan) is 328 MB; the
// strings its state keeps, 24 MB. So DecodeReaderAt reads the people
// section in pieces of about 1 MB, decodes the pieces on every core as
// they arrive, copies the strings
// it keeps into compact blocks (strArena) and reuses each piece's buffer
// once decoded: the file is never held whole, and the people are put into
// the map while the next pieces decode.
//
// The cuts and the checks are those of peopleParallel (one person per
// line, "\n    \"" before each ID; each piece must be consumed exactly);
// anything else (another layout, people not the last key, a damaged
// file) is read whole by DecodeOwned, which also reports the exact place
// of a problem.

// minStream is the file size from which DecodeReaderAt streams (a
// variable for tests).
var minStream int64 = 8 << 20

// checkPerson is state.CheckPerson (a variable for tests).
var checkPerson = state.CheckPerson

// streamPiece is about how many bytes of people one piece holds (a
// variable for tests).
var streamPiece = 1 << 20

// peopleMarker opens the people object in the layout leadsync writes:
// a top-level key (two spaces in) followed by its object.
const peopleMarker = "\n  \"people\": {"

// DecodeReaderAt decodes the state file of size bytes that r reads; path
// is used in errors only. It is Decode without holding the whole file in
// memory (see above); errors are Decode's, and a failure to read is
// returned as it is.
func DecodeReaderAt(path string, r io.ReaderAt, size int64) (*state.State, error) {
	if size >= minStream {
		s, err := decodeStream(r, size)
		if err != nil {
			return nil, err
		}
		if s != nil {
			if err := checkStreamed(s); err != nil {
				return nil, damaged(path, err)
			}
			return s, nil
		}
	}
	b := make([]byte, size)
	if n, err := r.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && int64(n) == size) {
		return nil, err
	}
	return DecodeOwned(path, b)
}

// decodeStream decodes a file in leadsync's layout with the people
// streamed. It returns nil and no error when the file must be read whole
// instead, and an error only when reading fails.
func decodeStream(r io.ReaderAt, size int64) (*state.State, error) {
	defer collectLess()()
	in := &pieceReader{r: r, size: size}
	head, err := in.head()
	if err != nil || head == nil {
		return nil, err
	}
	// Decode everything before the people (with an empty people object,
	// and the state's closing brace: people are its last key) while the
	// people stream.
	headDone := make(chan headResult, 1)
	go func() { headDone <- decodeHead(head) }()
	people, tail, ok, err := in.people(size)
	h := <-headDone
	if err = recovered.First(h.panic, err); err != nil || !ok || !h.ok || h.s.FormatVersion > state.FormatVersion {
		return nil, err // a newer format is refused by the whole read
	}
	// Only the state's closing brace may follow the people.
	if strings.TrimSpace(tail) != "}" {
		return nil, nil
	}
	h.s.People = people
	return h.s, nil
}

// headResult is decodeHead's: the state without its people, and whether
// the head is what a stream assumes; or the decoder's panic (a bug).
type headResult struct {
	s     *state.State
	ok    bool
	panic error
}

// decodeHead decodes everything before the people (head), with an empty
// people object and the state's closing brace: people are its last key.
func decodeHead(head []byte) (h headResult) {
	defer recovered.Catch(&h.panic)
	src := append(head, "}\n}"...)
	d := &decoder{src: unsafe.String(unsafe.SliceData(src), len(src)), peopleAt: -1}
	s, err := d.state()
	// The marker must be the top-level key, and the only one.
	ok := err == nil && d.peopleAt == len(head)-1 && d.peopleKeys == 1 && len(s.People) == 0
	return headResult{s: s, ok: ok}
}

// streamGCPercent is the collector's GOGC while people stream, unless it
// is higher already (or off).
const streamGCPercent = 200

// gcRaised counts the streams under way that raised GOGC, and keeps what
// it was before the first.
var gcRaised struct {
	sync.Mutex
	n, old int
}

// collectLess raises GOGC to streamGCPercent until the function it returns
// is called; streams at once share one raise. Why: what a stream
// allocates is the state itself, which lives on, so each collection
// while it streams marks the people decoded so far again and frees
// little, and its write barriers slow the decoding while it marks. A
// state read whole did not pay this: the file's bytes, allocated first,
// raised the collector's goal above the state it was decoded to. At 200
// the heap may grow to three times what the last collection kept:
// beside the state, only the pieces in flight and what runs at the same
// time (plan evaluates the configuration meanwhile, 90 MB at 10,000
// instances) can grow, and only until the stream ends.
func collectLess() (restore func()) {
	gcRaised.Lock()
	defer gcRaised.Unlock()
	if gcRaised.n == 0 {
		gcRaised.old = debug.SetGCPercent(streamGCPercent)
		if gcRaised.old < 0 || gcRaised.old > streamGCPercent {
			debug.SetGCPercent(gcRaised.old) // off, or higher: left as it is
		}
	}
	gcRaised.n++
	return func() {
		gcRaised.Lock()
		defer gcRaised.Unlock()
		if gcRaised.n--; gcRaised.n == 0 {
			debug.SetGCPercent(gcRaised.old)
		}
	}
}

// pieceReader reads a state file in order.
type pieceReader struct {
	r    io.ReaderAt
	size int64
	off  int64 // where the next read starts
}

// read appends up to n more bytes of the file to b.
func (in *pieceReader) read(b []byte, n int) ([]byte, error) {
	n = int(min(int64(n), in.size-in.off))
	if n <= 0 {
		return b, nil
	}
	b = growTo(b, len(b)+n)
	got, err := in.r.ReadAt(b[len(b):len(b)+n], in.off)
	in.off += int64(got)
	b = b[:len(b)+got]
	if err != nil && !(errors.Is(err, io.EOF) && got == n) {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("the file ended after %d of its %d bytes", in.off, in.size)
		}
		return b, err
	}
	return b, nil
}

// growTo returns b with room for n bytes.
func growTo(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

// head reads up to the brace that opens the people object and returns
// those bytes (the brace last, and room for three more); nil when the
// file has no such line. The bytes are read twice, first in pieces to
// find the brace, then at once into a buffer of their size: the state's
// searches point into it, for as long as the state lives.
func (in *pieceReader) head() ([]byte, error) {
	marker := []byte(peopleMarker)
	window := make([]byte, 0, streamPiece+len(marker))
	start := int64(0) // the offset of window[0]
	for in.off < in.size {
		// Keep the end of the window, where the marker may begin.
		drop := max(len(window)-len(marker)+1, 0)
		start += int64(drop)
		window = window[:copy(window, window[drop:])]
		var err error
		if window, err = in.read(window, streamPiece); err != nil {
			return nil, err
		}
		if i := bytes.Index(window, marker); i >= 0 {
			end := start + int64(i+len(marker))
			in.off = 0
			return in.read(make([]byte, 0, end+3), int(end))
		}
	}
	return nil, nil
}

// piece is a run of whole people entries, decoded on its own.
type piece struct {
	buf  []byte
	last bool // runs to the end of the file
	done chan pieceResult
}

type pieceResult struct {
	entries []personEntry
	ok      bool
	tail    string // of the last piece: what follows the people object
	panic   error  // the worker's panic (a bug), a *recovered.Panic
}

// people streams the people object from the bytes after its opening
// brace to the end of the file: pieces are cut, decoded on every core and
// put into the map in file order. ok is false when a piece is not what
// the cuts assume; the map is then incomplete.
func (in *pieceReader) people(size int64) (people map[string]*state.Person, tail string, ok bool, err error) {
	tail, ok, err = in.eachPiece(func(p *piece, entries []personEntry) error {
		if people == nil {
			people = make(map[string]*state.Person, peopleHint(size, len(p.buf), len(entries)))
		}
		for _, e := range entries {
			people[e.id] = e.p
		}
		return nil
	})
	if err != nil || !ok {
		return nil, "", ok, err
	}
	if people == nil {
		people = map[string]*state.Person{}
	}
	return people, tail, ok, nil
}

// eachPiece cuts the people object from the bytes after its opening brace
// to the end of the file into pieces, decodes them on every core and
// gives each piece's entries to put in file order (put must not keep the
// slice). ok is false when a piece is not what the cuts assume (put then
// saw only the pieces before it); an error of put stops the pass and is
// returned.
func (in *pieceReader) eachPiece(put func(p *piece, entries []personEntry) error) (tail string, ok bool, err error) {
	workers := min(runtime.GOMAXPROCS(0), 8)
	work := make(chan *piece, workers)
	order := make(chan *piece, 2*workers)
	stop := make(chan struct{})
	free := make(chan []byte, 3*workers+2)         // buffers of decoded pieces
	spare := make(chan []personEntry, 3*workers+2) // entries put into the map
	readErr := make(chan error, 1)
	go func() {
		defer close(work)
		defer close(order)
		readErr <- recovered.Call(func() error { return in.cut(work, order, free, stop) })
	}()
	for range workers {
		go decodePieces(work, free, spare)
	}
	ok = true
	var putErr error
	for p := range order {
		res := <-p.done
		if !ok || putErr != nil {
			// Drain: every piece sent has a worker. A later piece's bug
			// is still the read's error, never hidden by a fallback.
			putErr = recovered.First(putErr, res.panic)
			continue
		}
		if res.panic != nil {
			putErr = res.panic // a worker's bug: the read's error
			close(stop)
			continue
		}
		if !res.ok {
			ok = false
			close(stop)
			continue
		}
		if putErr = put(p, res.entries); putErr != nil {
			close(stop)
			continue
		}
		tail = res.tail
		select {
		case spare <- res.entries:
		default:
		}
	}
	if err = <-readErr; err != nil {
		return "", false, err
	}
	if putErr != nil {
		return "", false, putErr
	}
	return tail, ok, nil
}

// peopleHint is how many people a file of size bytes holds, judged from
// its first piece of people (n entries in pieceLen bytes), with a tenth
// more: a map that grows rehashes what it holds.
func peopleHint(size int64, pieceLen, n int) int {
	perPerson := float64(max(pieceLen, 1)) / float64(max(n, 1))
	return int(min(float64(size)/perPerson*1.1, float64(size)/8)) + 8
}

// cut reads the rest of the file and sends it as pieces to work (for a
// worker) and order (for the map, in file order), until the end of the
// file or stop.
func (in *pieceReader) cut(work, order chan<- *piece, free chan []byte, stop <-chan struct{}) error {
	const sep = "\n    \"" // before each person's ID
	var buf []byte
	for {
		var err error
		if buf, err = in.read(buf, streamPiece); err != nil {
			return err
		}
		last := in.off >= in.size
		n := len(buf)
		if !last {
			// Cut before the last ID that starts in this buffer, and
			// read on when there is none beyond the first.
			i := bytes.LastIndex(buf, []byte(sep))
			if i <= 0 {
				continue
			}
			n = i + len(sep) - 1
		}
		var next []byte
		select {
		case next = <-free:
		default:
			next = make([]byte, 0, streamPiece+streamPiece/4)
		}
		next = append(next[:0], buf[n:]...)
		p := &piece{buf: buf[:n], last: last, done: make(chan pieceResult, 1)}
		select {
		case work <- p:
		case <-stop:
			return nil
		}
		select {
		case order <- p:
		case <-stop:
			return nil
		}
		if last {
			return nil
		}
		buf = next
	}
}

// decodePieces decodes the pieces of work, each on its own decoder, with
// the people's memory (slab) and strings (arena) of this worker. A
// piece's buffer goes to free once decoded: nothing decoded points into
// it. The entries of a piece are appended to a slice from spare (the map
// has taken what it held) when there is one.
func decodePieces(work <-chan *piece, free chan<- []byte, spare <-chan []personEntry) {
	var slab []state.Person
	arena := &strArena{}
	for p := range work {
		var res pieceResult
		res, slab = decodePiece(p, slab, arena, spare)
		p.done <- res
		select {
		case free <- p.buf[:0]:
		default:
		}
	}
}

// decodePiece decodes the piece p with the slab and arena of its worker,
// and returns the slab left. A panic (a bug) is the result's.
func decodePiece(p *piece, slab []state.Person, arena *strArena, spare <-chan []personEntry) (res pieceResult, _ []state.Person) {
	defer recovered.Catch(&res.panic)
	d := &decoder{src: unsafe.String(unsafe.SliceData(p.buf), len(p.buf)), slab: slab, arena: arena}
	var out []personEntry
	select {
	case out = <-spare:
	default:
	}
	entries, ok := d.peopleEntries(p.last, out)
	// Each person is checked here, at hand, rather than by a pass of
	// Check over them all (CheckExceptPeople); a person Check would
	// refuse sends the file to the whole reader, for its error.
	for _, e := range entries {
		if ok && checkPerson(e.id, e.p) != nil {
			ok = false
		}
	}
	res = pieceResult{entries: entries, ok: ok}
	if ok && p.last {
		res.tail = strings.Clone(d.src[d.pos:])
	}
	return res, d.slab
}

// strArena copies the strings a decoder keeps into large blocks: one
// allocation for many strings, and no pointer into the file's bytes. Bytes
// handed out are never written again. A string equal to one kept recently
// is shared instead: a person's ID is also their networkId, their
// enrichment repeats their lead's names and page, and titles, places,
// companies and block addresses recur from person to person.
type strArena struct {
	block  []byte
	recent [1024]string // by recentSlot
}

const arenaBlock = 256 << 10

// keep returns a string equal to s that does not share s's memory.
func (a *strArena) keep(s string) string {
	if s == "" {
		return ""
	}
	slot := recentSlot(s)
	if r := a.recent[slot]; r == s {
		return r
	}
	var c string
	if len(s) > arenaBlock/16 {
		c = strings.Clone(s)
	} else {
		if len(a.block)+len(s) > cap(a.block) {
			a.block = make([]byte, 0, arenaBlock)
		}
		start := len(a.block)
		a.block = append(a.block, s...)
		c = unsafe.String(&a.block[start], len(s))
	}
	a.recent[slot] = c
	return c
}

// recentSlot places a string in strArena.recent by its length and three
// of its bytes: cheap, and equal strings always meet (others may evict
// each other, which only costs a copy).
func recentSlot(s string) int {
	n := len(s)
	h := uint32(n)*0x9e3779b1 ^ uint32(s[0])*0x85ebca6b ^ uint32(s[n/2])*0xc2b2ae35 ^ uint32(s[n-1])*0x27d4eb2f
	return int(h>>22) & 1023
}
