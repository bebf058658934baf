package statefile

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// The state of a large team holds hundreds of thousands of people, and every
// plan loads it. encoding/json decodes such a file at a few tens of MB/s,
// far from the one-second budget of a plan, so the bulk of the file (people
// and searches) is read by the small decoder below, which slices strings out
// of the file instead of copying them. The file itself stays plain JSON that
// encoding/json reads the same way (a test checks both agree); the rarer
// parts (usage, failures, profiles) go through encoding/json.

// decoder reads JSON from src, tracking the offset for errors.
type decoder struct {
	src string
	pos int
	// escaped caches decoded strings with escapes by their text: addresses
	// such as search.cto["Berlin"] repeat in every person's found_by.
	escaped map[string]string
	// lists shares identical found_by lists between people (by their
	// text); see addFoundBy for why sharing is safe.
	lists map[string][]string
	// lastTime and lastTimeText remember the last time parsed: the people
	// of one search run share their times.
	lastTime     time.Time
	lastTimeText string
	// slab hands out Person values in blocks, to spare the allocator.
	slab []state.Person
	// arena, when set, receives a copy of every string the decoder keeps
	// (the stream reuses src's memory; see stream.go).
	arena *strArena
	// peopleKeys counts the top-level "people" keys, and peopleAt is the
	// offset of the last one's value.
	peopleKeys, peopleAt int
}

func (d *decoder) fail(format string, args ...any) error {
	return &decodeError{offset: int64(d.pos), msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) ws() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (d *decoder) peek() byte {
	// Most tokens follow another without space: one comparison (every
	// space is at most ' ') instead of ws's loop.
	if d.pos < len(d.src) {
		if c := d.src[d.pos]; c > ' ' {
			return c
		}
	}
	d.ws()
	if d.pos >= len(d.src) {
		return 0
	}
	return d.src[d.pos]
}

func (d *decoder) expect(c byte) error {
	if d.peek() != c {
		if d.pos >= len(d.src) {
			return d.fail("not valid JSON: unexpected end of file, expected %q", c)
		}
		return d.fail("not valid JSON: unexpected %q, expected %q", d.src[d.pos], c)
	}
	d.pos++
	return nil
}

// null consumes a JSON null if one is next.
func (d *decoder) null() bool {
	if d.peek() == 'n' && len(d.src)-d.pos >= 4 && d.src[d.pos:d.pos+4] == "null" {
		d.pos += 4
		return true
	}
	return false
}

// object calls field for each key of an object; field must consume the
// value. A null is an empty object.
func (d *decoder) object(field func(key string) error) error {
	if d.null() {
		return nil
	}
	if d.peek() != '{' {
		return d.typeErr("an object")
	}
	d.pos++
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			if de, ok := err.(*decodeError); ok {
				de.path = append(de.path, key)
			}
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.fail("not valid JSON: expected ',' or '}' in object")
		}
	}
}

// array calls elem for each element; elem must consume it. Null is empty.
func (d *decoder) array(elem func() error) error {
	if d.null() {
		return nil
	}
	if d.peek() != '[' {
		return d.typeErr("a list")
	}
	d.pos++
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(); err != nil {
			if de, ok := err.(*decodeError); ok {
				de.path = append(de.path, "["+strconv.Itoa(i)+"]")
			}
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.fail("not valid JSON: expected ',' or ']' in list")
		}
	}
}

// strSpecial marks the bytes that end the fast scan of a string: the
// quote, the backslash, control characters and non-ASCII bytes.
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// specialBytes marks, in eight bytes of a string read as a little-endian
// word, the bytes strSpecial marks (0x80 in each): a quote, a backslash, a
// byte below 0x20 or from 0x80. Only the lowest mark is sure to be right
// (a borrow may mark bytes above a marked one), and the lowest one is all
// str uses.
func specialBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below := (x - 0x20*ones) & ^x & highs
	return below | zero(x^('"'*ones)) | zero(x^('\\'*ones)) | x&highs
}

// str reads a string. Strings without escapes are slices of src (no copy).
func (d *decoder) str() (string, error) {
	if d.peek() != '"' {
		return "", d.typeErr("a string")
	}
	start := d.pos + 1
	ascii := true
	src := d.src
	b := unsafe.Slice(unsafe.StringData(src), len(src))
	for i := start; i < len(src); i++ {
		// Eight bytes at a time up to the first special one.
		for i+8 <= len(b) {
			m := specialBytes(binary.LittleEndian.Uint64(b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(src) {
			break
		}
		if !strSpecial[src[i]] {
			continue
		}
		switch c := src[i]; {
		case c == '"':
			d.pos = i + 1
			s := src[start:i]
			if !ascii && !utf8.ValidString(s) {
				return toValidUTF8(s), nil
			}
			return s, nil
		case c == '\\':
			return d.strEscaped(start)
		case c < 0x20:
			d.pos = i
			return "", d.fail("not valid JSON: control character in string")
		default:
			ascii = false
		}
	}
	d.pos = len(src)
	return "", d.fail("not valid JSON: unexpected end of file in string")
}

// strEscaped decodes a string with escapes, from start (after the quote),
// through the cache of strings seen before.
func (d *decoder) strEscaped(start int) (string, error) {
	end := -1
	for i := start; i < len(d.src); i++ {
		if c := d.src[i]; c == '\\' {
			i++
		} else if c == '"' {
			end = i
			break
		}
	}
	if end < 0 || end-start > 256 {
		return d.strSlow(start)
	}
	text := d.src[start:end]
	if v, ok := d.escaped[text]; ok {
		d.pos = end + 1
		return v, nil
	}
	v, err := d.strSlow(start)
	if err == nil {
		if d.escaped == nil {
			d.escaped = map[string]string{}
		}
		if len(d.escaped) < 1<<16 {
			d.escaped[text] = v
		}
	}
	return v, err
}

// strSlow decodes a string with escapes, from start (after the quote).
func (d *decoder) strSlow(start int) (string, error) {
	b := make([]byte, 0, 32)
	i := start
	for i < len(d.src) {
		c := d.src[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return toValidUTF8(string(b)), nil
		case c < 0x20:
			d.pos = i
			return "", d.fail("not valid JSON: control character in string")
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(d.src) {
			break
		}
		switch e := d.src[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n := d.hex4(i + 2)
			if n < 0 {
				d.pos = i
				return "", d.fail("not valid JSON: bad \\u escape in string")
			}
			i += 2 + 4
			if utf16.IsSurrogate(r) {
				if r2, n2 := d.hex4(i + 2); n2 >= 0 && i+1 < len(d.src) && d.src[i] == '\\' && d.src[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			d.pos = i
			return "", d.fail("not valid JSON: bad escape in string")
		}
		i += 2
	}
	d.pos = len(d.src)
	return "", d.fail("not valid JSON: unexpected end of file in string")
}

func (d *decoder) hex4(i int) (rune, int) {
	if i+4 > len(d.src) {
		return 0, -1
	}
	v, err := strconv.ParseUint(d.src[i:i+4], 16, 16)
	if err != nil {
		return 0, -1
	}
	return rune(v), 4
}

func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, r) // invalid bytes come out as U+FFFD, as encoding/json does
	}
	return string(out)
}

// typeErr reports a value of the wrong kind at the current position.
func (d *decoder) typeErr(want string) error {
	got := "value"
	switch d.peek() {
	case '"':
		got = "string"
	case '{':
		got = "object"
	case '[':
		got = "list"
	case 't', 'f':
		got = "boolean"
	case 'n':
		got = "null"
	case 0:
		return d.fail("not valid JSON: unexpected end of file")
	default:
		got = "number"
	}
	return d.fail("found a JSON %s where %s was expected", got, want)
}

// strOrNull reads a string the state keeps; null gives "".
func (d *decoder) strOrNull() (string, error) {
	if d.null() {
		return "", nil
	}
	s, err := d.str()
	return d.keep(s), err
}

// keep returns s for the state to keep: s itself, or with an arena, a
// copy of s when s is a slice of src. Keys, times and numbers are read
// from src and dropped: only the strings the state keeps go through keep.
func (d *decoder) keep(s string) string {
	if d.arena == nil || len(s) == 0 {
		return s
	}
	p, base := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(d.src)))
	if p < base || p >= base+uintptr(len(d.src)) {
		return s // decoded from escapes: already a string of its own
	}
	return d.arena.keep(s)
}

// number returns the literal of a number.
func (d *decoder) number() (string, error) {
	d.ws()
	start := d.pos
	for d.pos < len(d.src) {
		c := d.src[d.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			d.pos++
			continue
		}
		break
	}
	if d.pos == start {
		return "", d.typeErr("a number")
	}
	lit := d.src[start:d.pos]
	if !json.Valid([]byte(lit)) {
		d.pos = start
		return "", d.fail("not valid JSON: bad number %q", lit)
	}
	return lit, nil
}

func (d *decoder) int() (int, error) {
	if d.null() {
		return 0, nil
	}
	start := d.pos
	lit, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(lit)
	if err != nil {
		d.pos = start
		return 0, d.fail("%s is not a whole number", lit)
	}
	return n, nil
}

func (d *decoder) uint64() (uint64, error) {
	if d.null() {
		return 0, nil
	}
	start := d.pos
	lit, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil {
		d.pos = start
		if strings.HasPrefix(lit, "-") {
			return 0, d.fail("%s is negative; expected a whole number of 0 or more", lit)
		}
		return 0, d.fail("%s is not a whole number", lit)
	}
	return n, nil
}

func (d *decoder) bool() (bool, error) {
	if d.null() {
		return false, nil
	}
	switch {
	case len(d.src)-d.pos >= 4 && d.src[d.pos:d.pos+4] == "true":
		d.pos += 4
		return true, nil
	case len(d.src)-d.pos >= 5 && d.src[d.pos:d.pos+5] == "false":
		d.pos += 5
		return false, nil
	}
	return false, d.typeErr("true or false")
}

func (d *decoder) time() (time.Time, error) {
	if d.null() {
		return time.Time{}, nil
	}
	start := d.pos
	s, err := d.str()
	if err != nil {
		return time.Time{}, err
	}
	if s == d.lastTimeText && s != "" {
		return d.lastTime, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil {
		d.lastTime, d.lastTimeText = t, s
	}
	if err != nil {
		d.pos = start
		return time.Time{}, d.fail("%q is not a time (RFC 3339)", s)
	}
	return t, nil
}

func (d *decoder) timePtr() (*time.Time, error) {
	if d.null() {
		return nil, nil
	}
	t, err := d.time()
	return &t, err
}

// skip consumes any value and returns its text.
func (d *decoder) skip() (string, error) {
	d.ws()
	start := d.pos
	var err error
	switch d.peek() {
	case '{':
		err = d.object(func(string) error { _, err := d.skip(); return err })
	case '[':
		err = d.array(func() error { _, err := d.skip(); return err })
	case '"':
		_, err = d.str()
	case 't', 'f':
		_, err = d.bool()
	case 'n':
		if !d.null() {
			err = d.fail("not valid JSON: unexpected %q", d.src[d.pos])
		}
	case 0:
		err = d.fail("not valid JSON: unexpected end of file")
	default:
		_, err = d.number()
	}
	return d.src[start:d.pos], err
}

// raw returns the text of the next value as a fresh RawMessage (nil for null).
func (d *decoder) raw() (json.RawMessage, error) {
	if d.null() {
		return nil, nil
	}
	s, err := d.skip()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

// std decodes the next value with encoding/json into v.
func (d *decoder) std(v any) error {
	start := d.pos
	s, err := d.skip()
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		d.pos = start
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			d.pos = start + int(te.Offset)
			return d.fail("%s holds a JSON %s where %s was expected", te.Field, te.Value, jsonKind(te.Type.String()))
		}
		return d.fail("%v", err)
	}
	return nil
}

// decodeFast parses a whole state file. Unknown keys are skipped, as
// encoding/json does; keys are matched exactly (the file is written by
// leadsync).
func decodeFast(src string) (*state.State, error) {
	d := &decoder{src: src}
	return d.state()
}

// state decodes a whole state file from d's position.
func (d *decoder) state() (*state.State, error) {
	s := &state.State{}
	if d.peek() != '{' {
		return nil, d.typeErr("an object")
	}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "format_version":
			s.FormatVersion, err = d.int()
		case "lineage":
			s.Lineage, err = d.strOrNull()
		case "serial":
			s.Serial, err = d.uint64()
		case "leadsync_version":
			s.LeadsyncVersion, err = d.strOrNull()
		case "service":
			s.Service, err = d.strOrNull()
		case "configuration":
			s.Configuration, err = d.strOrNull()
		case "journal":
			if !d.null() {
				s.Journal = &state.JournalMark{}
				err = d.std(s.Journal)
			}
		case "usage":
			err = d.std(&s.Usage)
		case "failures":
			err = d.std(&s.Failures)
		case "unknown_enrichments":
			err = d.std(&s.UnknownEnrichments)
		case "suppressed":
			err = d.std(&s.Suppressed)
		case "erased_enrichments":
			err = d.std(&s.ErasedEnrichments)
		case "splits":
			err = d.std(&s.Splits)
		case "imports":
			err = d.std(&s.Imports)
		case "marks":
			err = d.std(&s.Marks)
		case "profiles":
			err = d.std(&s.Profiles)
		case "searches":
			if s.Searches == nil {
				s.Searches = map[string]*state.Search{}
			}
			err = d.object(func(addr string) error {
				if d.null() {
					s.Searches[addr] = nil
					return nil
				}
				sr, err := d.search()
				s.Searches[addr] = sr
				return err
			})
		case "people":
			err = d.people(s)
		default:
			_, err = d.skip()
		}
		if err != nil && s.FormatVersion > state.FormatVersion {
			return &decodeError{newer: s.FormatVersion, writtenBy: s.LeadsyncVersion}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if d.peek() != 0 {
		return nil, d.fail("not valid JSON: data after the end of the state")
	}
	return s, nil
}

// people reads the people object into s.People, on every core when it
// can (peopleParallel).
func (d *decoder) people(s *state.State) error {
	d.peek()
	d.peopleKeys, d.peopleAt = d.peopleKeys+1, d.pos
	if s.People == nil {
		s.People = make(map[string]*state.Person, len(d.src)/600)
	}
	if d.peopleParallel(s.People) {
		return nil
	}
	return d.object(func(id string) error {
		if d.null() {
			s.People[id] = nil
			return nil
		}
		p, err := d.person()
		s.People[id] = p
		return err
	})
}

func (d *decoder) search() (*state.Search, error) {
	sr := &state.Search{}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "address":
			sr.Address, err = d.strOrNull()
		case "generation":
			var g int
			g, err = d.int()
			sr.Generation = api.Generation(g)
		case "request":
			sr.Request, err = d.raw()
		case "request_hash":
			sr.RequestHash, err = d.strOrNull()
		case "ran_at":
			sr.RanAt, err = d.time()
		case "result_count":
			sr.ResultCount, err = d.int()
		case "max_results":
			sr.MaxResults, err = d.int()
		case "runs":
			sr.Runs, err = d.int()
		case "changed":
			sr.Changed, err = d.int()
		case "capped":
			sr.Capped, err = d.bool()
		case "lead_ids":
			sr.LeadIDs, err = d.strings(sr.LeadIDs)
		case "added":
			sr.Added, err = d.int()
		case "removed":
			sr.Removed, err = d.int()
		case "suppressed":
			sr.Suppressed, err = d.int()
		case "split":
			if !d.null() {
				sr.Split = &state.SplitTree{}
				err = d.std(sr.Split)
			}
		default:
			_, err = d.skip()
		}
		return err
	})
	return sr, err
}

func (d *decoder) strings(into []string) ([]string, error) {
	if d.null() {
		return nil, nil
	}
	out := into[:0]
	if out == nil {
		out = []string{}
	}
	err := d.array(func() error {
		s, err := d.str()
		out = append(out, d.keep(s))
		return err
	})
	return out, err
}

// sharedList reads a list of strings, returning the same backing array for
// the same text. The slices have len == cap, so an append copies.
func (d *decoder) sharedList() ([]string, error) {
	if d.null() {
		return nil, nil
	}
	start := d.pos
	// The text first: a list seen before is not decoded again.
	text, err := d.skip()
	if err != nil {
		d.pos = start
	} else if shared, ok := d.lists[text]; ok {
		return shared, nil
	}
	d.pos = start
	list, err := d.strings(nil)
	if err != nil || list == nil {
		return list, err
	}
	if d.lists == nil {
		d.lists = map[string][]string{}
	}
	list = list[:len(list):len(list)]
	if len(d.lists) < 1<<16 {
		d.lists[text] = list
	}
	return list, nil
}

func (d *decoder) person() (*state.Person, error) {
	if len(d.slab) == 0 {
		d.slab = make([]state.Person, 1024)
	}
	p := &d.slab[0]
	d.slab = d.slab[1:]
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "id":
			p.ID, err = d.strOrNull()
		case "lead":
			err = d.lead(&p.Lead)
		case "first_seen":
			p.FirstSeen, err = d.time()
		case "last_seen":
			p.LastSeen, err = d.time()
		case "found_by":
			p.FoundBy, err = d.sharedList()
		case "profile":
			if !d.null() {
				p.Profile = &person.Profile{}
				err = d.std(p.Profile)
			}
		case "profile_read_at":
			p.ProfileReadAt, err = d.timePtr()
		case "enrichment":
			if !d.null() {
				p.Enrichment, err = d.enrichment()
			}
		case "raw":
			p.Raw, err = d.raw()
		case "history":
			p.History, err = d.history()
		case "status":
			p.Status, err = d.strOrNull()
		case "status_since":
			p.StatusSince, err = d.timePtr()
		case "checked_at":
			p.CheckedAt, err = d.timePtr()
		case "checked_generation":
			var g int
			g, err = d.int()
			p.CheckedGeneration = api.Generation(g)
		case "tracked":
			p.Tracked, err = d.tracked()
		default:
			_, err = d.skip()
		}
		return err
	})
	return p, err
}

// tracked reads a person's track reads: an object of times by track
// address; nil when null or empty.
func (d *decoder) tracked() (map[string]time.Time, error) {
	var out map[string]time.Time
	err := d.object(func(addr string) error {
		at, err := d.time()
		if err != nil {
			return err
		}
		if out == nil {
			out = map[string]time.Time{}
		}
		out[addr] = at
		return nil
	})
	return out, err
}

// history reads a person's history: a list of drifts.
func (d *decoder) history() ([]state.Drift, error) {
	// Most histories are short: room for two without growing.
	out := make([]state.Drift, 0, 2)
	err := d.array(func() error {
		var h state.Drift
		err := d.object(func(key string) error {
			var err error
			switch key {
			case "field":
				h.Field, err = d.strOrNull()
			case "before":
				h.Before, err = d.strOrNull()
			case "after":
				h.After, err = d.strOrNull()
			case "at":
				h.At, err = d.time()
			case "by":
				h.By, err = d.strOrNull()
			case "call":
				h.Call, err = d.strOrNull()
			default:
				_, err = d.skip()
			}
			return err
		})
		out = append(out, h)
		return err
	})
	return out, err
}

func (d *decoder) enrichment() (*state.Enrichment, error) {
	e := &state.Enrichment{}
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "enriched_at":
			e.EnrichedAt, err = d.time()
		case "by":
			e.By, err = d.strOrNull()
		case "result":
			err = d.enriched(&e.Result)
		case "copied_by":
			e.CopiedBy, err = d.strOrNull()
		default:
			_, err = d.skip()
		}
		return err
	})
	return e, err
}

// personEntry is one "id": {...} of the people object.
type personEntry struct {
	id string
	p  *state.Person
}

// minParallel is the size of the people section below which one core
// decodes it (a variable for tests).
var minParallel = 8 << 20

// peopleParallel decodes the people object on several cores when the file
// has the layout leadsync writes (one person per line, "\n    \"" before
// each ID). It cuts the object at such line starts, decodes the pieces at
// once, and checks that each piece ends exactly where the next begins; as
// the first piece starts right after the "{", every cut is then known to
// fall between two people. It returns false, having consumed nothing, when
// the layout is not recognised or any piece fails: the caller then decodes
// the object itself (and reports errors with their exact place).
func (d *decoder) peopleParallel(into map[string]*state.Person) bool {
	workers := runtime.GOMAXPROCS(0)
	if workers > 8 {
		workers = 8
	}
	if d.peek() != '{' || workers < 2 || len(d.src)-d.pos < minParallel {
		return false
	}
	body := d.pos + 1
	const sep = "\n    \""
	cuts := []int{body}
	for k := 1; k < workers; k++ {
		target := body + (len(d.src)-body)*k/workers
		i := strings.Index(d.src[target:], sep)
		if i < 0 {
			break
		}
		if cut := target + i + len(sep) - 1; cut > cuts[len(cuts)-1] {
			cuts = append(cuts, cut)
		}
	}
	if len(cuts) < 2 {
		return false
	}
	// Every piece but the last: entries each followed by a comma, ending
	// exactly at the next cut. The last piece runs to the closing brace.
	parts := make([][]personEntry, len(cuts))
	oks := make([]bool, len(cuts))
	ends := make([]int, len(cuts))
	var wg sync.WaitGroup
	for k := range cuts {
		end, last := len(d.src), k == len(cuts)-1
		if !last {
			end = cuts[k+1]
		}
		wg.Add(1)
		go func(k, start, end int, last bool) {
			defer wg.Done()
			sub := &decoder{src: d.src[:end], pos: start}
			entries, ok := sub.peopleEntries(last, nil)
			parts[k], oks[k], ends[k] = entries, ok, sub.pos
		}(k, cuts[k], end, last)
	}
	wg.Wait()
	for k := range cuts {
		if !oks[k] {
			return false
		}
	}
	for _, part := range parts {
		for _, e := range part {
			into[e.id] = e.p
		}
	}
	d.pos = ends[len(ends)-1]
	return true
}

// peopleEntries decodes "id": person pairs up to the end of src (each
// followed by a comma), or, when last, up to and including the closing
// brace of the people object. They are appended to out[:0] (nil: a new
// slice).
func (d *decoder) peopleEntries(last bool, out []personEntry) ([]personEntry, bool) {
	if out == nil {
		out = make([]personEntry, 0, (len(d.src)-d.pos)/400+1) // people take ~500 bytes
	}
	out = out[:0]
	for {
		if !last && d.peek() == 0 {
			return out, true
		}
		if last && d.peek() == '}' {
			d.pos++
			return out, true
		}
		id, err := d.str()
		if err != nil || d.expect(':') != nil {
			return nil, false
		}
		id = d.keep(id)
		var p *state.Person
		if !d.null() {
			if p, err = d.person(); err != nil {
				return nil, false
			}
		}
		out = append(out, personEntry{id, p})
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			if !last {
				return nil, false
			}
			d.pos++
			return out, true
		default:
			return nil, false
		}
		if last && d.peek() == '}' {
			return nil, false // a trailing comma: not JSON
		}
	}
}
