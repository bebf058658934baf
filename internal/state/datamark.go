package state

// DataMark names the state a spreadsheet was written from: its lineage,
// its serial, and on the local file the journal calls that loading it
// replayed (an apply killed before its commit leaves calls the serial does
// not count). Two loads give equal marks only when they hold the same
// data. A state never written has no lineage (it is made up anew by each
// load).
type DataMark struct {
	// Workspace is the workspace the state is of ("" for the default
	// one): two workspaces with one lineage (one pushed from the other)
	// may reach one serial with different data. See DataMarkIn.
	Workspace string       `json:"workspace,omitempty"`
	Lineage   string       `json:"lineage"`
	Serial    uint64       `json:"serial"`
	Journal   *JournalMark `json:"journal,omitempty"`

	// Epoch is the state's Epoch: the workspace was deleted and made
	// again since, when it differs. Empty on either side (a record
	// written before epochs, a backend without them) it is not compared.
	Epoch string `json:"epoch,omitempty"`
}

// DataMark returns the mark of s as it is now: after a Commit, the
// committed serial.
func (s *State) DataMark() DataMark {
	if s == nil || s.Serial == 0 {
		return DataMark{}
	}
	m := DataMark{Epoch: s.Epoch, Lineage: s.Lineage, Serial: s.Serial}
	if s.Journal != nil {
		j := *s.Journal
		m.Journal = &j
	}
	return m
}

// DataMarkIn is DataMark with the workspace the state is of: workspace as
// the configuration names it ("" and DefaultWorkspace are the default one,
// which a mark leaves empty, as marks written before workspaces had one).
func (s *State) DataMarkIn(workspace string) DataMark {
	m := s.DataMark()
	if workspace != DefaultWorkspace {
		m.Workspace = workspace
	}
	return m
}

// Equal reports whether m and o name the same data.
func (m DataMark) Equal(o DataMark) bool {
	if m.Workspace != o.Workspace || m.Lineage != o.Lineage || m.Serial != o.Serial {
		return false
	}
	if m.Epoch != "" && o.Epoch != "" && m.Epoch != o.Epoch {
		return false
	}
	if m.Journal == nil || o.Journal == nil {
		return m.Journal == nil && o.Journal == nil
	}
	return *m.Journal == *o.Journal
}

// DefaultWorkspace is the workspace used when none is chosen, on every
// backend. On the local backend it is the state file itself (state_path),
// as before workspaces.
const DefaultWorkspace = "default"
