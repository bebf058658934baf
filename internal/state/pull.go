package state

import (
	"bufio"
	"io"
)

// Encode writes s as the local state file's JSON (what `leadsync state pull`
// prints), exactly as Save would write it, without changing s.
func Encode(w io.Writer, s *State) error {
	s.normalizeMaps()
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encodeState(bw, s); err != nil {
		return err
	}
	return bw.Flush()
}
