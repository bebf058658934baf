package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/leadsync/leadsync/internal/api"
)

// oddState holds the awkward values: escapes, non-ASCII, HTML characters,
// line separators, profiles, raw items, nil and empty lists.
func oddState(t testing.TB) *State {
	s := New()
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
	leads := []api.Lead{
		{FullName: "Zoë \"Q\" O'Brien <&>", FirstName: "Zoë", LastName: "O'Brien\u2028x", Title: "CTO\tand\nCEO\\", NetworkID: "1.a", PageName: "zoe"},
		{FullName: "日本 太郎", PageName: "taro", Company: "\x01ctrl"},
		{FullName: "Nobody"},
	}
	raw := []api.RawLead{}
	must(t, json.Unmarshal([]byte(`[{"cursor":"c1","node":{"networkId":{"id":"1.a","pageName":"zoe","profileImage":[{"url":"https://img.example/z_64x64.jpg"}],`+
		`"occupations":[{"category":"EDUCATION","summary":"**TU** Köln","links":null}]},"highlight":{"haves":["**Go**"],"city":null},`+
		`"profileSkills":{"topSkills":["Go",{"name":"SQL"}]},"contactsCount":{"count":1234},"sharedContacts":{"total":null},"contactDistance":{"distance":2},`+
		`"networkRelationship":{"permissions":["MESSAGE"]},"extra":[1,2.5e3,null,true]}},{"cursor":"c2"},{"cursor":"c3"}]`), &raw))
	must(t, s.Fold(Event{At: at, Kind: EventSearch, Address: `search.x["Köln"]`, Search: &SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords": "CTO", "city":"Köln"}`), Leads: leads, Raw: raw}}))
	must(t, s.Fold(Event{At: at, Kind: EventProfile, Address: "profile.p", Profile: &ProfileEvent{Generation: api.Gen2, PageName: "taro", Request: json.RawMessage(`{"pageName":"taro"}`),
		Profile: api.Profile{FullName: "日本 太郎", CurrentPosition: []api.Position{{JobTitle: "Boss", Company: "ACME"}}, Private: true,
			ProfileImg: "https://img.example/taro.jpg?a=1&b=<2>",
			WorkPositionTimeline: []api.TimelinePosition{{JobTitle: "Boss", Company: "ACME", StartDate: "Feb 2024", DaysInPosition: 800},
				{JobTitle: "Intern\u2028", Company: "\"Beta\"", StartDate: "Jan 2016", EndDate: new("Jan 2019"), DaysInPosition: -1}}}}}))
	must(t, s.Fold(Event{At: at, Kind: EventEnrich, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "1.a", Credits: 1, Result: api.EnrichedProfile{NetworkID: "1.a", Email: "z@example.com", ProfileImgURL: "https://img.example/z.jpg", CreditBalance: 41}}}))
	must(t, s.Fold(Event{At: at, Kind: EventBilling, Billing: &api.Usage{RemainingRequests: 9000, InvoicingStartDate: "2026-03-01"}}))
	must(t, s.Fold(Event{At: at, Kind: EventFailure, Address: "search.y", Failure: &Failure{Message: "500 <boom>", Status: 500}}))
	// A split search completed (the root at the cap, both children under
	// it) and another under way.
	for _, e := range []Event{splitEv(at, "search.s", []string{}, 300), splitEv(at, "search.s", []string{"A"}, 2), splitEv(at, "search.s", []string{"B"}, 1),
		splitEv(at, "search.t", []string{}, 300), splitEv(at, "search.t", []string{"B"}, 3)} {
		must(t, s.Fold(e))
	}
	if s.Searches["search.s"].Split == nil || s.Splits["search.t"] == nil {
		t.Fatal("oddState: the split searches are not as intended")
	}
	s.Journal = &JournalMark{ID: "j", Seq: 3}
	s.Searches["search.empty"] = &Search{Address: "search.empty", LeadIDs: []string{}}
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func encode(t testing.TB, s *State) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	must(t, encodeState(w, s))
	must(t, w.Flush())
	return buf.Bytes()
}

var cmpState = cmp.Options{cmpopts.IgnoreUnexported(State{}),
	// Raw JSON means the same compacted; null is the same as absent.
	cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(compactRaw(a), compactRaw(b)) }),
}

func compactRaw(r json.RawMessage) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, r) != nil {
		return r
	}
	if buf.String() == "null" {
		return nil
	}
	return buf.Bytes()
}

// TestCodecAgreesWithEncodingJSON: the fast writer and reader must mean
// exactly what encoding/json means, so the file stays ordinary JSON.
func TestCodecAgreesWithEncodingJSON(t *testing.T) {
	for name, s := range map[string]*State{"odd": oddState(t), "big": bigState(t, 20, 15), "empty": New()} {
		t.Run(name, func(t *testing.T) {
			b := encode(t, s)
			if !json.Valid(b) {
				t.Fatalf("not JSON:\n%s", b)
			}
			fast, err := decodeState(string(b))
			must(t, err)
			std, err := decodeStd(b)
			must(t, err)
			if d := cmp.Diff(std, fast, cmpState); d != "" {
				t.Errorf("fast and standard decoding differ (-std +fast):\n%s", d)
			}
			// The writer produces what encoding/json would.
			for id, p := range s.People {
				got, err := appendPerson(nil, p)
				must(t, err)
				want, err := marshal(p)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Errorf("person %s:\n got %s\nwant %s", id, got, want)
				}
			}
			for addr, sr := range s.Searches {
				got, err := appendSearch(nil, sr)
				must(t, err)
				want, err := marshal(sr)
				must(t, err)
				if !bytes.Equal(got, want) {
					t.Errorf("search %s:\n got %s\nwant %s", addr, got, want)
				}
			}
			// Round trip keeps everything (times compared as instants).
			if d := cmp.Diff(s, fast, cmpState, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); d != "" {
				t.Errorf("round trip lost something (-before +after):\n%s", d)
			}
		})
	}
}

func TestDecodeStringEscapes(t *testing.T) {
	for _, in := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u2028\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, "\"caf\xc3\xa9\"", "\"bad\xff\""} {
		var want string
		must(t, json.Unmarshal([]byte(in), &want))
		d := &decoder{src: in}
		got, err := d.str()
		must(t, err)
		if got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestParallelPeopleDecoding: the parallel decoder gives what the
// sequential one gives, and steps aside for layouts it does not know.
func TestParallelPeopleDecoding(t *testing.T) {
	defer func(n int) { minParallel = n }(minParallel)
	big := bigState(t, 40, 25)
	indented, err := json.MarshalIndent(big, "", "  ")
	must(t, err)
	tabbed, err := json.MarshalIndent(big, "", "\t")
	must(t, err)
	fourSpaces, err := json.MarshalIndent(big, "", "    ")
	must(t, err)
	inputs := map[string][]byte{
		"ours":        encode(t, big),
		"odd":         encode(t, oddState(t)),
		"indented":    indented,
		"tabs":        tabbed,
		"four spaces": fourSpaces,
		"damaged":     bytes.Replace(encode(t, big), []byte(`"first_seen":`), []byte(`"first_seen":3,`), 1),
	}
	for name, b := range inputs {
		t.Run(name, func(t *testing.T) {
			minParallel = 1 << 62
			seq, seqErr := decodeState(string(b))
			minParallel = 1
			par, parErr := decodeState(string(b))
			if (seqErr == nil) != (parErr == nil) || (seqErr != nil && seqErr.Error() != parErr.Error()) {
				t.Fatalf("errors differ: sequential %v, parallel %v", seqErr, parErr)
			}
			if d := cmp.Diff(seq, par, cmpState); d != "" {
				t.Errorf("states differ:\n%s", d)
			}
		})
	}
}
