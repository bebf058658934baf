package statefile

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// FuzzLoad: the state loader never panics, its parallel and streamed
// readers read what the sequential one reads, and whatever it accepts it
// writes back and reads again unchanged.
//
//	go test ./internal/state/statefile -run '^$' -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	f.Add(encode(f, oddState(f)))
	f.Add(encode(f, state.New()))
	f.Add([]byte(`{"format_version":1,"lineage":"x","people":{"a":{"lead":{"fullName":"\u00e9\ud83d"},"found_by":["b","a"]}}}`))
	f.Add([]byte(`{"format_version":2,"lineage":"x"}`))
	f.Add([]byte(`{"format_version":1,"lineage":"x","searches":{"s":{"lead_ids":null,"request":{"a":[1,2e5]}}}}`))
	f.Add([]byte(`{"format_version":1e400}`))
	f.Add([]byte("{\"format_version\":1,\"lineage\":\"x\",\"people\": {\n    \"a\": {\"id\":\"a\"},\n    \"b\": null,\n    \"c\": {}\n  }\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The parallel people decoder agrees with the sequential one.
		saved := minParallel
		minParallel = 1
		par, parErr := Decode("state.json", data)
		minParallel = saved
		s, err := Decode("state.json", data)
		if (err == nil) != (parErr == nil) || (err != nil && err.Error() != parErr.Error()) {
			t.Fatalf("sequential: %v, parallel: %v", err, parErr)
		}
		if d := cmp.Diff(s, par, cmpState); err == nil && d != "" {
			t.Fatalf("parallel decoding differs:\n%s", d)
		}
		// So does the streamed one, in pieces of 64 bytes.
		savedMin, savedPiece := minStream, streamPiece
		minStream, streamPiece = 1, 64
		str, strErr := DecodeReaderAt("state.json", bytes.NewReader(data), int64(len(data)))
		minStream, streamPiece = savedMin, savedPiece
		if (err == nil) != (strErr == nil) || (err != nil && err.Error() != strErr.Error()) {
			t.Fatalf("whole: %v, streamed: %v", err, strErr)
		}
		if d := cmp.Diff(s, str, cmpState); err == nil && d != "" {
			t.Fatalf("streamed decoding differs:\n%s", d)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		again, err := Decode("state.json", encode(t, s))
		if err != nil {
			t.Fatalf("cannot read back what was written: %v", err)
		}
		if d := cmp.Diff(s, again, cmpState, cmpTime); d != "" {
			t.Fatalf("round trip changed the state:\n%s", d)
		}
	})
}
