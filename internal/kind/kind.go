package kind

// Kind is the kind of thing an address names, written as the address
// writes it ("search" in search.cto). A Kind read from text that the
// table has no row for (Known is false) keeps its text, so that a message
// can name what was written.
type Kind string

// The kinds of the table.
const (
	// None is no kind: a module address, or text that is no address.
	None    Kind = ""
	Search  Kind = "search"
	Profile Kind = "profile"
	Import  Kind = "import"
	Enrich  Kind = "enrich"
	Track   Kind = "track"
	Export  Kind = "export"
	Exclude Kind = "exclude"
	// Person is a person of the state, person.<id>: no block declares it.
	Person Kind = "person"
	// People is the people of the state as a whole, the plan's change of
	// those retention removes: no block declares it either.
	People Kind = "people"
)

// Row is what the table says of one kind.
type Row struct {
	Kind Kind
	// Block: a block of the configuration declares it (search "cto" {}).
	Block bool
	// Instances: its blocks take for_each or count, so an address of the
	// kind may carry an instance key (search.cto["Berlin"]).
	Instances bool
	// HoldsRecords: the state keeps a record at each of its addresses,
	// which state list lists, state show shows and state rm removes.
	HoldsRecords bool
	// Moves: a moved block or state mv moves what the state keeps under
	// its addresses (its records, or what it did: an enrich block's
	// enrichments).
	Moves bool
	// Planned: the plan has a change for each of its blocks (with an
	// action, or none when it is up to date); an exclude block has none of
	// its own (the enrich blocks read it).
	Planned bool
	// Noun is the kind in a sentence, without its article: "search",
	// "enrich block" ("a search moves to a search, ..., an enrich block to
	// an enrich block").
	Noun string
	// Removed is what state rm says of a removed record, a format of the
	// address (%[1]s) and the count of Counted (%[2]s, written by the
	// caller, "3 leads"); "" for a kind that holds no records.
	Removed string
	// Counted is the noun Removed counts ("lead", "person"); "" when it
	// counts nothing.
	Counted string
	// NotAgain and NotAgainMany say what would not happen to one or to
	// several addresses of the kind that a --replace names and --target
	// leaves out ("it would not run again").
	NotAgain, NotAgainMany string
}

// table is every kind, in the order messages list them.
var table = []Row{
	{Kind: Search, Block: true, Planned: true, Instances: true, HoldsRecords: true, Moves: true, Noun: "search",
		Removed: "Removed %[1]s (%[2]s leave the exports that list it; people and enrichments are kept)", Counted: "lead",
		NotAgain: "it would not run again", NotAgainMany: "they would not run again"},
	{Kind: Profile, Block: true, Planned: true, Instances: true, HoldsRecords: true, Moves: true, Noun: "profile",
		Removed:  "Removed %[1]s (the person and their enrichment are kept)",
		NotAgain: "it would not be read again", NotAgainMany: "they would not be read again"},
	{Kind: Import, Block: true, Planned: true, HoldsRecords: true, Moves: true, Noun: "import block",
		Removed: "Removed %[1]s (its %[2]s leave the exports that list it; people and their e-mails are kept)", Counted: "person",
		NotAgain: "it would not run again", NotAgainMany: "they would not run again"},
	{Kind: Enrich, Block: true, Planned: true, Moves: true, Noun: "enrich block",
		NotAgain: "it would not run again", NotAgainMany: "they would not run again"},
	{Kind: Track, Block: true, Planned: true, HoldsRecords: true, Moves: true, Noun: "track block",
		Removed: "Removed %[1]s: its reads of %[2]s are forgotten, so the next plan finds its sources' people due again (unless a profile block or another track read them within its every) and no longer watches those its sources hold no more; their history is kept", Counted: "person",
		NotAgain: "its people would not be read again", NotAgainMany: "their people would not be read again"},
	{Kind: Export, Block: true, Planned: true, Noun: "export block",
		NotAgain: "it would not run again", NotAgainMany: "they would not run again"},
	{Kind: Exclude, Block: true, Noun: "exclude block",
		NotAgain: "it would not run again", NotAgainMany: "they would not run again"},
	{Kind: Person, HoldsRecords: true, Noun: "person",
		Removed: "Removed %[1]s and their enrichment"},
	{Kind: People, Noun: "people"},
}

// All returns every row of the table, in its order.
func All() []Row { return append([]Row(nil), table...) }

// Blocks returns the kinds of blocks (Row.Block), in the table's order.
func Blocks() []Kind { return kinds(func(r Row) bool { return r.Block }) }

// Moving returns the kinds whose records move (Row.Moves), in the table's
// order: the kinds a moved block may name.
func Moving() []Kind { return kinds(func(r Row) bool { return r.Moves }) }

func kinds(keep func(Row) bool) []Kind {
	var out []Kind
	for _, r := range table {
		if keep(r) {
			out = append(out, r.Kind)
		}
	}
	return out
}

// Lookup returns the kind written name, and whether the table has it.
func Lookup(name string) (Kind, bool) {
	k := Kind(name)
	return k, k.Known()
}

// Row returns the row of k; the zero Row (no block, no records, no
// words) for a kind the table does not have.
func (k Kind) Row() Row {
	for _, r := range table {
		if r.Kind == k {
			return r
		}
	}
	return Row{Kind: k}
}

// Known reports whether the table has k.
func (k Kind) Known() bool { return k != None && k.Row().Noun != "" }

// IsBlock reports whether a block of the configuration declares k.
func (k Kind) IsBlock() bool { return k.Row().Block }

// HoldsRecords reports whether the state keeps records at k's addresses.
func (k Kind) HoldsRecords() bool { return k.Row().HoldsRecords }

// Moves reports whether a moved block or state mv moves k's records.
func (k Kind) Moves() bool { return k.Row().Moves }

// HasInstances reports whether k's blocks take for_each or count.
func (k Kind) HasInstances() bool { return k.Row().Instances }

// String returns the kind as an address writes it.
func (k Kind) String() string { return string(k) }
