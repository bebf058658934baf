package local

import (
	"bytes"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// FuzzJournal: the journal reader never panics; what it accepts frames
// back to the same events.
//
//	go test ./internal/state/local -run '^$' -fuzz FuzzJournal -fuzztime 60s
func FuzzJournal(f *testing.F) {
	var buf bytes.Buffer
	buf.Write(frame([]byte(`{"leadsync_journal":1,"id":"j","lineage":"l","base_serial":0,"created":"2026-01-01T00:00:00Z"}`)))
	for _, e := range demoEvents() {
		b, err := statefile.Marshal(e)
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
		s := state.New()
		for _, e := range jr.events {
			if err := s.Fold(e); err != nil {
				t.Fatalf("an accepted event does not fold: %v", err)
			}
		}
		// Reading only the intact prefix gives the same events.
		again, err := parseJournal(data[:jr.good])
		if err != nil || len(again.events) != len(jr.events) {
			t.Fatalf("prefix: %v, %d events, want %d", err, len(again.events), len(jr.events))
		}
	})
}
