package local

import (
	"iter"
	"os"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// The workspaces of a working copy share one API account: the
// backend.CrossWorkspace ability (reuse of enrichments, erasure in every
// workspace).

var _ backend.CrossWorkspace = (*Workspace)(nil)

// OtherWorkspaces lists the workspaces besides this one that exist (the
// default one when its state was ever written).
func (ws *Workspace) OtherWorkspaces() ([]string, error) {
	names, err := ws.set.names()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if n == ws.name {
			continue
		}
		if n == state.DefaultWorkspace && !ws.set.newStore(ws.set.Path(n)).Exists() {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// Sibling opens workspace name of the same working copy.
func (ws *Workspace) Sibling(name string) (backend.Backend, error) { return ws.set.Open(name) }

// EnrichmentsElsewhere reads, of the people of every other workspace
// the keys name, their lookup keys and enrichments alone (keyedPeople:
// found by their indexes; past maxKeyedAsk keys, every person holding an
// enrichment; a workspace with the calls of an interrupted apply is read
// whole) and returns, per key asked for, the newest enrichment one of
// them holds. An enrichment copied there from a third workspace is named
// by the workspace that paid for it.
func (ws *Workspace) EnrichmentsElsewhere(keys []string) (map[string]state.Reusable, error) {
	out := map[string]state.Reusable{}
	if len(keys) == 0 {
		return out, nil
	}
	want, read := wantedKeys(keys)
	err := ws.eachOther(read, func(name string, people iter.Seq[*state.Person]) {
		collectReusable(people, name, want, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// peopleReader gives do, a page at a time, some people of a Base that
// hold an enrichment, each holding at least its lookup keys' fields
// (state.LookupKeys) and its enrichment.
type peopleReader func(b *state.Base, do func(iter.Seq[*state.Person])) error

// wantedKeys are keys as a set, and the reader of another workspace's
// people EnrichmentsElsewhere asks about them: by their indexes
// (keyedPeople), or, past maxKeyedAsk keys, every person holding an
// enrichment (enrichedPeople).
func wantedKeys(keys []string) (map[string]bool, peopleReader) {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	if len(keys) <= maxKeyedAsk {
		return want, keyedPeople(keys)
	}
	return want, enrichedPeople
}

// loadSettled loads the workspace while another process may be ending an
// apply in it: the state file is read before the journal, so a commit
// between the two (the new state renamed into place, the journal removed)
// would hide the calls of that apply. The state file is looked at before
// and after, and read again when it was replaced meanwhile.
func (ws *Workspace) loadSettled() (*state.State, error) {
	for range 10 {
		before, _ := os.Stat(ws.Store.Path())
		s, err := ws.Load()
		if err != nil {
			return nil, err
		}
		after, _ := os.Stat(ws.Store.Path())
		if sameFile(before, after) {
			return s, nil
		}
	}
	return ws.Load()
}

// sameFile reports whether two looks at a file saw the same file, unchanged
// (or no file both times).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// collectReusable adds to out the enrichments of people (workspace name)
// of the people named by want (every one when want is nil), where newer than
// what out holds.
func collectReusable(people iter.Seq[*state.Person], name string, want map[string]bool, out map[string]state.Reusable) {
	for p := range people {
		if p == nil || p.Enrichment == nil {
			continue
		}
		from := name
		if rf := p.Enrichment.ReusedFrom(); rf != "" {
			from = rf
		}
		for _, k := range state.LookupKeys(p) {
			if want == nil || want[k] {
				keepNewer(out, k, state.Reusable{Workspace: from, Enrichment: *p.Enrichment})
			}
		}
	}
}

// keepNewer makes r out's answer for key k unless out holds one as new.
func keepNewer(out map[string]state.Reusable, k string, r state.Reusable) {
	if cur, ok := out[k]; !ok || r.Enrichment.EnrichedAt.After(cur.Enrichment.EnrichedAt) {
		out[k] = r
	}
}
