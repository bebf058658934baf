package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
)

// genStream is the state write makes, read as a backend.Stream and pushed
// as `leadsync state push` pushes one: the searches are folded a chunk at
// a time (the same foldSearch), once for the header and once for the
// people, so that 10,000,000 people never sit in memory at once. The
// header's usage is the last chunk's, its credits summed over the chunks.
type genStream struct {
	now                   time.Time
	n, people, maxResults int
	addr                  func(int) string
	header                *state.State
}

// streamChunk is how many searches are folded at a time.
const streamChunk = 100

func newGenStream(now time.Time, n, people, maxResults int, addr func(int) string) (*genStream, error) {
	g := &genStream{now: now, n: n, people: people, maxResults: maxResults, addr: addr, header: state.New()}
	count := 0
	err := g.chunks(func(st *state.State) error {
		maps.Copy(g.header.Searches, st.Searches)
		spent, months := g.header.Usage.CreditsSpent, g.header.Usage.CreditsByMonth
		g.header.Usage = st.Usage
		g.header.Usage.CreditsSpent += spent
		for m, c := range months {
			if g.header.Usage.CreditsByMonth == nil {
				g.header.Usage.CreditsByMonth = map[string]int{}
			}
			g.header.Usage.CreditsByMonth[m] += c
		}
		count += len(st.People)
		return nil
	})
	if err == nil && count != people {
		err = fmt.Errorf("the chunks hold %d people, not the %d asked for", count, people)
	}
	return g, err
}

// chunks folds the searches streamChunk at a time, each chunk into a
// state of its own, and hands each to fn.
func (g *genStream) chunks(fn func(st *state.State) error) error {
	first := 0
	for start := 0; start < g.n; start += streamChunk {
		st := state.New()
		for i := start; i < min(start+streamChunk, g.n); i++ {
			per := g.people / g.n
			if i < g.people%g.n {
				per++
			}
			if err := foldSearch(st, g.now, i, first, per, g.maxResults, g.addr(i)); err != nil {
				return err
			}
			first += per
		}
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

func (g *genStream) Describe() string     { return "bigplan's state" }
func (g *genStream) Header() *state.State { return g.header }
func (g *genStream) Close() error         { return nil }

func (g *genStream) People(fn func(batch []*state.Person) error) error {
	return g.chunks(func(st *state.State) error {
		ids := slices.Sorted(maps.Keys(st.People))
		for start := 0; start < len(ids); start += backend.StreamBatch {
			batch := make([]*state.Person, 0, backend.StreamBatch)
			for _, id := range ids[start:min(start+backend.StreamBatch, len(ids))] {
				batch = append(batch, st.People[id])
			}
			if err := fn(batch); err != nil {
				return err
			}
		}
		return nil
	})
}

// pushStream writes g into the local store or the pg schema of to, as
// `state push --force` does, and says where it went.
func (to target) pushStream(dir string, g *genStream) (string, error) {
	if to.pgConn != "" {
		b, err := pg.New(pg.Options{ConnStr: to.pgConn, Schema: to.pgSchema})
		if err != nil {
			return "", err
		}
		defer b.Close()
		if _, err := b.PushStream(g, true); err != nil {
			return "", err
		}
		return fmt.Sprintf("the PostgreSQL schema %q", to.pgSchema), nil
	}
	path := filepath.Join(dir, ".leadsync", "state.db")
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".backup"} {
		os.Remove(p)
	}
	ws, err := local.NewWorkspaces(path, local.NewStore).Open(state.DefaultWorkspace)
	if err != nil {
		return "", err
	}
	defer ws.Close()
	if _, err := ws.PushStream(g, true); err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%.0f MB)", path, float64(fi.Size())/1e6), nil
}
