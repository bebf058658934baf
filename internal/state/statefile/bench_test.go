package statefile

import (
	"bytes"
	stdjson "encoding/json"
	"sync"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// The measurement behind keeping the hand-written codec (docs/decisions.md,
// figures in docs/performance.md): load and save of the 300,000-person
// state (5,000 searches of 60 people, every tenth enriched; 175 MB) with
// the hand codec, with github.com/go-json-experiment/json (the module
// behind encoding/json/v2) and with encoding/json.
//
//	go test ./internal/state/statefile -run '^$' -bench 'Codec300k' -benchmem -benchtime 3x -count 3

var big struct {
	once sync.Once
	s    *state.State
	file []byte
}

// bigFile is the big state and its file, built once per test binary.
func bigFile(b *testing.B) (*state.State, []byte) {
	big.once.Do(func() {
		big.s = statetest.BigState(b, 5000, 60)
		var buf bytes.Buffer
		if err := Encode(&buf, big.s); err != nil {
			b.Fatal(err)
		}
		big.file = buf.Bytes()
	})
	return big.s, big.file
}

// v2Options make json v2 read and write what the file holds: names
// matched exactly, nil lists and maps as null (as encoding/json wrote
// them), keys sorted.
var v2Options = jsonv2.JoinOptions(jsonv2.FormatNilSliceAsNull(true), jsonv2.FormatNilMapAsNull(true),
	jsonv2.Deterministic(true), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

func BenchmarkLoadCodec300k(b *testing.B) {
	_, file := bigFile(b)
	for _, c := range []struct {
		name   string
		decode func([]byte) (*state.State, error)
	}{
		// DecodeOwned: the state's strings share the file's bytes (which nothing changes here, so one copy
		// serves every iteration; reading the file costs the same for all).
		{"hand", func(f []byte) (*state.State, error) { return DecodeOwned("state.json", f) }},
		// DecodeReaderAt is what the local backend uses since: the file
		// is read in pieces, and the state keeps copies of its strings.
		{"hand-stream", func(f []byte) (*state.State, error) {
			return DecodeReaderAt("state.json", bytes.NewReader(f), int64(len(f)))
		}},
		{"jsonv2", func(f []byte) (*state.State, error) {
			var s state.State
			if err := jsonv2.Unmarshal(f, &s, v2Options); err != nil {
				return nil, err
			}
			return &s, s.Check()
		}},
		{"encoding-json", func(f []byte) (*state.State, error) {
			var s state.State
			if err := stdjson.Unmarshal(f, &s); err != nil {
				return nil, err
			}
			return &s, s.Check()
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			b.ResetTimer()
			defer statetest.CPUMetric(b)()
			for i := 0; i < b.N; i++ {
				s, err := c.decode(file)
				if err != nil {
					b.Fatal(err)
				}
				if len(s.People) != 300000 {
					b.Fatalf("%d people", len(s.People))
				}
			}
		})
	}
}

func BenchmarkSaveCodec300k(b *testing.B) {
	s, file := bigFile(b)
	for _, c := range []struct {
		name   string
		encode func(*bytes.Buffer) error
	}{
		{"hand", func(w *bytes.Buffer) error { return Encode(w, s) }},
		{"jsonv2", func(w *bytes.Buffer) error { return jsonv2.MarshalWrite(w, s, v2Options) }},
		{"encoding-json", func(w *bytes.Buffer) error {
			enc := stdjson.NewEncoder(w)
			enc.SetEscapeHTML(false)
			return enc.Encode(s)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			buf.Grow(len(file) + len(file)/8)
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			b.ResetTimer()
			defer statetest.CPUMetric(b)()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := c.encode(&buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// What json v2 reads from a state file is what the hand codec reads: the
// benchmark compares like with like.
func TestJSONv2ReadsTheStateFile(t *testing.T) {
	for name, s := range map[string]*state.State{"odd": oddState(t), "big": bigState(t, 20, 15)} {
		file := encode(t, s)
		hand, err := Decode("state.json", file)
		must(t, err)
		var v2 state.State
		must(t, jsonv2.Unmarshal(file, &v2, v2Options))
		must(t, v2.Check())
		if d := cmpDiff(hand, &v2); d != "" {
			t.Errorf("%s: json v2 reads another state (-hand +v2):\n%s", name, d)
		}
	}
}
