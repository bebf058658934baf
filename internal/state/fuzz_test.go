package state

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoad: the state loader never panics, and whatever it accepts it
// writes back and reads again unchanged.
//
//	go test ./internal/state -run '^$' -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	f.Add(encode(f, oddState(f)))
	f.Add(encode(f, New()))
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

// FuzzJournal: the journal reader never panics; what it accepts frames
// back to the same events.
//
//	go test ./internal/state -run '^$' -fuzz FuzzJournal -fuzztime 60s
func FuzzJournal(f *testing.F) {
	var buf bytes.Buffer
	buf.Write(frame([]byte(`{"leadsync_journal":1,"id":"j","lineage":"l","base_serial":0,"created":"2026-01-01T00:00:00Z"}`)))
	for _, e := range demoEvents() {
		b, err := marshal(e)
		if err != nil {
			f.Fatal(err)
		}
		buf.Write(frame(b))
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()-7])
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		jr, err := parseJournal(data)
		if err != nil {
			return
		}
		if jr.good > len(data) {
			t.Fatalf("good prefix %d longer than the input %d", jr.good, len(data))
		}
		s := New()
		for _, e := range jr.events {
			if err := s.Fold(e); err != nil {
				t.Fatalf("an accepted event does not apply: %v", err)
			}
		}
		// Reading only the intact prefix gives the same events.
		again, err := parseJournal(data[:jr.good])
		if err != nil || len(again.events) != len(jr.events) {
			t.Fatalf("prefix: %v, %d events, want %d", err, len(again.events), len(jr.events))
		}
	})
}
