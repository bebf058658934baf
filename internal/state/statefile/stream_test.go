package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// streamSmall makes DecodeReaderAt stream every file, in pieces of n
// bytes, for the rest of the test.
func streamSmall(t testing.TB, n int) {
	savedMin, savedPiece := minStream, streamPiece
	minStream, streamPiece = 1, n
	t.Cleanup(func() { minStream, streamPiece = savedMin, savedPiece })
}

// decodeBoth decodes b whole (Decode) and streamed (DecodeReaderAt).
func decodeBoth(b []byte) (whole, streamed *state.State, wholeErr, streamErr error) {
	whole, wholeErr = Decode("state.json", b)
	streamed, streamErr = DecodeReaderAt("state.json", bytes.NewReader(b), int64(len(b)))
	return
}

// TestStreamedDecoding: the streamed reader gives exactly what the whole
// reader gives, the same errors included, for our layout cut at every
// size of piece, and steps aside for every layout it does not know.
func TestStreamedDecoding(t *testing.T) {
	big := bigState(t, 40, 25)
	ours := encode(t, big)
	indented, err := json.MarshalIndent(big, "", "  ")
	must(t, err)
	// The people object not last, then twice, and a "people" line inside
	// another object, at the indentation of a top-level key.
	notLast := bytes.Replace(ours, []byte("\n}\n"), []byte(",\n  \"zzz\": 1\n}\n"), 1)
	twice := bytes.Replace(ours, []byte("\n}\n"), []byte(",\n  \"people\": {}\n}\n"), 1)
	nested := bytes.Replace(ours, []byte(`"usage": `), []byte("\"x\": {\n  \"people\": {}},\n  \"usage\": "), 1)
	i := bytes.Index(ours, []byte(peopleMarker))
	inputs := map[string][]byte{
		"ours":        ours,
		"odd":         encode(t, oddState(t)),
		"empty":       encode(t, state.New()),
		"indented":    indented,
		"not last":    notLast,
		"twice":       twice,
		"nested":      nested,
		"damaged":     bytes.Replace(ours, []byte(`"first_seen":`), []byte(`"first_seen":3,`), 1),
		"last broken": bytes.Replace(ours, []byte("\n  }\n}\n"), []byte("\n  \n}\n"), 1),
		"trailing":    append(bytes.Clone(ours), " x"...),
		"cut short":   ours[:len(ours)-200],
		"no people":   append(bytes.Clone(ours[:i]), "\n}\n"...),
		"newer":       bytes.Replace(ours, []byte(`"format_version": 1`), []byte(`"format_version": 99`), 1),
		"null person": bytes.Replace(ours, []byte(peopleMarker), []byte(peopleMarker+"\n    \"zz\": null,"), 1),
		"crlf":        bytes.ReplaceAll(ours, []byte("\n"), []byte("\r\n")),
		// A NUL byte after a person's comma ends no piece (peek gives it
		// as it gives the end of a piece): the people after it in the
		// piece were dropped without an error (CI's fuzzing found it in
		// the parallel reader).
		"nul after a comma": append(bytes.Clone(ours[:i]), bytes.Replace(ours[i:], []byte("},\n    \""), []byte("},\x00 x\n    \""), 1)...),
		// What Check checks of each person, the streamed reader checks.
		"mismatched id":     bytes.Replace(ours, []byte(`: {"id":"`), []byte(`: {"id":"other`), 1),
		"no id":             bytes.Replace(ours, []byte(`: {"id":"`), []byte(`: {"x":"`), 1),
		"unsorted found_by": bytes.Replace(ours, []byte(`"found_by":["`), []byte(`"found_by":["zzz","`), 1),
	}
	for name, b := range inputs {
		for _, piece := range []int{7, 300, 4096, 1 << 20} {
			streamSmall(t, piece)
			whole, streamed, wholeErr, streamErr := decodeBoth(b)
			if (wholeErr == nil) != (streamErr == nil) || (wholeErr != nil && wholeErr.Error() != streamErr.Error()) {
				t.Fatalf("%s, pieces of %d: whole %v, streamed %v", name, piece, wholeErr, streamErr)
			}
			if d := cmp.Diff(whole, streamed, cmpState); d != "" {
				t.Fatalf("%s, pieces of %d: states differ (-whole +streamed):\n%s", name, piece, d)
			}
		}
	}
}

// TestStreamedStateSharesNoPiece: what the streamed reader keeps points
// into no buffer it read the file into (which it reuses), and equal
// strings read near each other are kept once.
func TestStreamedStateSharesNoPiece(t *testing.T) {
	streamSmall(t, 4096)
	b := encode(t, bigState(t, 40, 25))
	want, err := Decode("state.json", b)
	must(t, err)
	// Every buffer the people are read into: overwritten once decoded, a
	// string still pointing into one would read "#...". (What comes
	// before the people is kept as it was read: the searches' strings
	// point into it.)
	r := &recordingReader{r: bytes.NewReader(b), from: int64(bytes.Index(b, []byte(peopleMarker)) + len(peopleMarker))}
	s, err := DecodeReaderAt("state.json", r, int64(len(b)))
	must(t, err)
	if len(r.bufs) < 10 {
		t.Fatalf("the people were read in %d pieces", len(r.bufs))
	}
	for _, buf := range r.bufs {
		for i := range buf {
			buf[i] = '#'
		}
	}
	if d := cmp.Diff(want, s, cmpState); d != "" {
		t.Fatalf("the state changed with the file's bytes:\n%s", d)
	}
	shared := 0
	for id, p := range s.People {
		if strings.Contains(id, "#") {
			t.Fatalf("ID %q points into the file", id)
		}
		if unsafe.StringData(p.ID) == unsafe.StringData(id) {
			shared++
		}
	}
	if shared < len(s.People)*9/10 {
		t.Errorf("%d of %d people share their ID with their key", shared, len(s.People))
	}
}

// recordingReader keeps every buffer it reads into from offset from on.
type recordingReader struct {
	r    *bytes.Reader
	from int64
	mu   sync.Mutex
	bufs [][]byte
}

func (r *recordingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.from {
		r.mu.Lock()
		r.bufs = append(r.bufs, p)
		r.mu.Unlock()
	}
	return r.r.ReadAt(p, off)
}

// failingReader fails after n bytes.
type failingReader struct {
	r *bytes.Reader
	n int64
}

var errDisk = errors.New("input/output error")

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.n {
		return 0, errDisk
	}
	return f.r.ReadAt(p, off)
}

// TestStreamedReadError: a failure to read is returned as it is, whether
// it comes in the head, among the people or at the end.
func TestStreamedReadError(t *testing.T) {
	b := encode(t, bigState(t, 40, 25))
	for _, n := range []int64{10, int64(bytes.Index(b, []byte(peopleMarker))) + 100, int64(len(b)) - 10} {
		for _, piece := range []int{300, 1 << 20} {
			streamSmall(t, piece)
			_, err := DecodeReaderAt("state.json", failingReader{bytes.NewReader(b), n}, int64(len(b)))
			if !errors.Is(err, errDisk) {
				t.Errorf("failing after %d bytes, pieces of %d: %v, want the read error", n, piece, err)
			}
		}
	}
	// A file shorter than its size says.
	streamSmall(t, 300)
	if _, err := DecodeReaderAt("state.json", bytes.NewReader(b[:len(b)/2]), int64(len(b))); err == nil ||
		!strings.Contains(err.Error(), "the file ended after") {
		t.Errorf("short file: %v", err)
	}
}

func TestStrArena(t *testing.T) {
	var a strArena
	src := []byte("Berlin, Germany")
	k := a.keep(string(src[:6]))
	again := a.keep(string(src[:6]))
	if k != "Berlin" || unsafe.StringData(k) != unsafe.StringData(again) {
		t.Errorf("kept %q and %q apart", k, again)
	}
	long := strings.Repeat("x", arenaBlock)
	if got := a.keep(long); got != long {
		t.Error("a long string changed")
	}
	for i := range 3 * arenaBlock / 10 {
		s := strings.Repeat(string(rune('a'+i%26)), 10)
		if got := a.keep(s); got != s {
			t.Fatalf("got %q, want %q", got, s)
		}
	}
	if k != "Berlin" {
		t.Errorf("a later string overwrote %q", k)
	}
}

// TestCollectLess: streams raise GOGC while any is under way and set it
// back after the last; a GOGC higher already, or off, is left alone.
func TestCollectLess(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	a := collectLess()
	b := collectLess()
	if got := testenv.GCPercent(); got != streamGCPercent {
		t.Fatalf("GOGC %d while streaming, want %d", got, streamGCPercent)
	}
	a()
	if got := testenv.GCPercent(); got != streamGCPercent {
		t.Fatalf("GOGC %d while a stream is still under way, want %d", got, streamGCPercent)
	}
	b()
	if got := testenv.GCPercent(); got != 100 {
		t.Fatalf("GOGC %d after the streams, want 100 again", got)
	}
	for _, was := range []int{-1, 400} {
		debug.SetGCPercent(was)
		restore := collectLess()
		if got := testenv.GCPercent(); got != was {
			t.Errorf("GOGC %d while streaming, want %d left alone", got, was)
		}
		restore()
	}
}
