package export

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// panickyStore is a failingStore whose panicAt-th read of people panics
// (a bug in a store); with streams, it streams pages too, and the stream
// panics at its panicAt-th page.
type panickyStore struct {
	failingStore
	panicAt int
	streams bool
}

func (s *panickyStore) Get(ids []string) ([]*state.Person, error) {
	if s.reads+1 == s.panicAt {
		panic("a bug in a pager")
	}
	return s.failingStore.Get(ids)
}

func (s *panickyStore) StreamsPages() bool { return s.streams }

func (s *panickyStore) StreamPages(next func() ([]string, bool), fn func([]*state.Person) bool) error {
	for ids, ok := next(); ok; ids, ok = next() {
		people, err := s.Get(ids)
		if err != nil {
			return err
		}
		if !fn(people) {
			return nil
		}
	}
	return nil
}

// TestAPanicInAPagerIsTheExportsError: a panic in a goroutine that reads
// the people of an export's rows (a read ahead, a stream of pages) is
// Write's error, a *recovered.Panic holding that goroutine's stack,
// which cli.Run reports as a crash; nothing is written, and no read is
// under way once Write has returned.
func TestAPanicInAPagerIsTheExportsError(t *testing.T) {
	st := storeState(t)
	for _, tc := range []struct {
		name    string
		streams bool
		panicAt int
		stack   string
	}{
		{"a read ahead", false, 2, "(*rowPeople).readAhead"},
		{"a stream of pages", true, 4, "(*rowPeople).startStream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sh := &config.Sheet{Name: "All", From: []string{`search.cto["a"]`}, Dedupe: true}
			cfg, _ := fixture("out/all.csv", sh)
			cfg.Dir = t.TempDir()
			cfg.Searches = []*config.Search{{Address: `search.cto["a"]`, Addr: typed(`search.cto["a"]`), Block: "search.cto", Name: "cto"}}
			rec := *st
			rec.People = nil
			store := &panickyStore{failingStore: failingStore{st: st, failAt: 100}, panicAt: tc.panicAt, streams: tc.streams}
			b := state.NewStoredBase(&rec, nil, store)
			b.SetPage(1)
			_, err := Write(cfg, cfg.Exports[0], b, Options{Now: fixedNow})
			p, ok := errors.AsType[*recovered.Panic](err)
			if !ok || fmt.Sprint(p.Value) != "a bug in a pager" || !strings.Contains(string(p.Stack), tc.stack) {
				t.Fatalf("Write: %v; want the panic of %s", err, tc.stack)
			}
			if n := store.underway.Load(); n != 0 {
				t.Errorf("%d reads under way once Write returned", n)
			}
			if files, _ := filepath.Glob(filepath.Join(cfg.Dir, "out", "*")); len(files) > 0 {
				t.Errorf("files written: %v", files)
			}
		})
	}
}
