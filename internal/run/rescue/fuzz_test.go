package rescue

import (
	"os"
	"testing"
)

// FuzzReadFile: whatever a rescue file holds (a crash, a full disk, a
// hand edit), ReadFile (its parse) never panics; what it returns is a header with a
// run and events that fold (Validate), or an error.
func FuzzReadFile(f *testing.F) {
	dir := f.TempDir()
	w := PlaceIn(dir, "seed").NewWriter(Header{Run: "run-1", Lineage: "L", Created: t0, State: "state file x"})
	if err := w.Append(enrichEvent(1, "ann")); err != nil {
		f.Fatal(err)
	}
	if err := w.Append(enrichEvent(2, "bob")); err != nil {
		f.Fatal(err)
	}
	w.Close()
	good, err := os.ReadFile(w.Path())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("00000000 {}\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		rf, err := parse("x.rescue", b)
		if err != nil || rf == nil {
			return
		}
		if rf.Header.Run == "" || rf.Header.Version < 1 || rf.Header.Version > Version {
			t.Fatalf("header %+v accepted", rf.Header)
		}
		for _, e := range rf.Events {
			if err := e.Validate(); err != nil {
				t.Fatalf("an event that does not fold was returned: %v", err)
			}
		}
	})
}
