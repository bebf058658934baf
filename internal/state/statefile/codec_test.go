package statefile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

func encode(t testing.TB, s *state.State) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	must(t, encodeState(w, s))
	must(t, w.Flush())
	return buf.Bytes()
}

// TestCodecAgreesWithEncodingJSON: the fast writer and reader must mean
// exactly what encoding/json means, so the file stays ordinary JSON.
func TestCodecAgreesWithEncodingJSON(t *testing.T) {
	for name, s := range map[string]*state.State{"odd": oddState(t), "big": bigState(t, 20, 15), "empty": state.New()} {
		t.Run(name, func(t *testing.T) {
			b := encode(t, s)
			if !json.Valid(b) {
				t.Fatalf("not JSON:\n%s", b)
			}
			fast, err := decodeState(string(b))
			must(t, err)
			var std state.State
			must(t, json.Unmarshal(b, &std))
			if d := cmp.Diff(&std, fast, cmpState); d != "" {
				t.Errorf("fast and standard decoding differ (-std +fast):\n%s", d)
			}
			// The writer produces what encoding/json would.
			for id, p := range s.People {
				got, err := appendPerson(nil, p)
				must(t, err)
				want, err := Marshal(p)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Errorf("person %s:\n got %s\nwant %s", id, got, want)
				}
			}
			for addr, sr := range s.Searches {
				got, err := appendSearch(nil, sr)
				must(t, err)
				want, err := Marshal(sr)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Errorf("search %s:\n got %s\nwant %s", addr, got, want)
				}
			}
			// Round trip keeps everything (times compared as instants).
			if d := cmp.Diff(s, fast, cmpState, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
				t.Errorf("round trip lost something (-before +after):\n%s", d)
			}
		})
	}
}

func TestDecodeStringEscapes(t *testing.T) {
	for _, in := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u2028\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, "\"caf\xc3\xa9\"", "\"bad\xff\""} {
		var want string
		must(t, json.Unmarshal([]byte(in), &want))
		d := &decoder{src: in}
		got, err := d.str()
		must(t, err)
		if got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestParallelPeopleDecoding: the parallel decoder gives what the
// sequential one gives, and steps aside for layouts it does not know.
func TestParallelPeopleDecoding(t *testing.T) {
	defer func(n int) { minParallel = n }(minParallel)
	big := bigState(t, 40, 25)
	indented, err := json.MarshalIndent(big, "", "  ")
	must(t, err)
	tabbed, err := json.MarshalIndent(big, "", "\t")
	must(t, err)
	fourSpaces, err := json.MarshalIndent(big, "", "    ")
	must(t, err)
	inputs := map[string][]byte{
		"ours":        encode(t, big),
		"odd":         encode(t, oddState(t)),
		"indented":    indented,
		"tabs":        tabbed,
		"four spaces": fourSpaces,
		"damaged":     bytes.Replace(encode(t, big), []byte(`"first_seen":`), []byte(`"first_seen":3,`), 1),
	}
	for name, b := range inputs {
		t.Run(name, func(t *testing.T) {
			minParallel = 1 << 62
			seq, seqErr := decodeState(string(b))
			minParallel = 1
			par, parErr := decodeState(string(b))
			if (seqErr == nil) != (parErr == nil) || (seqErr != nil && seqErr.Error() != parErr.Error()) {
				t.Fatalf("errors differ: sequential %v, parallel %v", seqErr, parErr)
			}
			if d := cmp.Diff(seq, par, cmpState); d != "" {
				t.Errorf("states differ:\n%s", d)
			}
		})
	}
}

// TestSpecialBytes: the lowest byte specialBytes marks in a word is the
// first byte strSpecial marks, for every byte at every place after plain
// ones, and in random words.
func TestSpecialBytes(t *testing.T) {
	first := func(w [8]byte) int {
		for i, c := range w {
			if strSpecial[c] {
				return i
			}
		}
		return 8
	}
	check := func(w [8]byte) {
		t.Helper()
		got := 8
		if m := specialBytes(binary.LittleEndian.Uint64(w[:])); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if want := first(w); got != want {
			t.Fatalf("%q: first special byte at %d, want %d", w, got, want)
		}
	}
	for at := range 8 {
		for c := range 256 {
			w := [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}
			w[at] = byte(c)
			check(w)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = byte(rng.IntN(256))
		}
		check(w)
	}
}
