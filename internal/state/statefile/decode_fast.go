package statefile

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

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

func (d *decoder) int() (int, error) { return whole(d, strconv.Atoi, false) }

func (d *decoder) uint64() (uint64, error) { return whole(d, parseUint64, true) }

func parseUint64(lit string) (uint64, error) { return strconv.ParseUint(lit, 10, 64) }

// whole reads a whole number with parse, or null (0). A literal parse
// refuses is reported at its start; a negative one as negative when the
// number is unsigned.
func whole[T int | uint64](d *decoder, parse func(string) (T, error), unsigned bool) (T, error) {
	if d.null() {
		return 0, nil
	}
	start := d.pos
	lit, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := parse(lit)
	if err != nil {
		d.pos = start
		if unsigned && strings.HasPrefix(lit, "-") {
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
