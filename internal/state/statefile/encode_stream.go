package statefile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/leadsync/leadsync/internal/state"
)

// EncodeStream writes the state whose header (every field but the
// people) is h and whose people pass to the function people gives them to
// in batches, in the order of their IDs (a backend.Stream): the same file
// as Encode, written as the people pass, so that a state of millions of
// people is never held whole (state pull). People out of order are an
// error: the file would not be the one Encode writes.
func EncodeStream(w io.Writer, h *state.State, people func(fn func([]*state.Person) error) error) error {
	h.Normalize()
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encodeRecords(bw, h); err != nil {
		return err
	}
	bw.WriteString(`  "people": {`)
	var b []byte
	last, n := "", 0
	err := people(func(batch []*state.Person) error {
		for _, p := range batch {
			if n > 0 && p.ID <= last {
				return fmt.Errorf("people %q and %q are out of order", last, p.ID)
			}
			b = b[:0]
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendStr(b, p.ID)
			b = append(b, ": "...)
			var err error
			if b, err = appendPerson(b, p); err != nil {
				return fmt.Errorf("people %q: %w", p.ID, err)
			}
			if _, err := bw.Write(b); err != nil {
				return err
			}
			last = p.ID
			n++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("}\n}\n")
	return bw.Flush()
}
