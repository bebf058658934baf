package address

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/kind"
)

// ModuleKeyword starts each call of a module path: module.NAME.
const ModuleKeyword = "module"

// Step is one module call of a module path: module.NAME, or one instance
// of it, module.NAME["key"] or module.NAME[0].
type Step struct {
	Name string
	// Key is the instance key as written, brackets included: `["de"]`,
	// `[0]`; "" for a call without for_each or count, or for every
	// instance of one (in a pattern).
	Key string
}

// Address is a parsed address. Kind is "" for the address of a module (or
// of one of its instances): module.dach, module.dach["de"].
type Address struct {
	// Module are the module calls from the root that declare the block,
	// outermost first; none for a block of the root.
	Module []Step
	// Kind is the kind of the block, as written: a kind the table of
	// internal/kind does not have keeps its text (Kind.Known is false).
	Kind kind.Kind
	Name string
	// Key is the instance key as written, brackets included; "" for a
	// block without for_each or count, or for every instance (a block
	// address).
	Key string
}

// Parse reads an address. Keys are written as leadsync writes them: a
// string as a Go-quoted string (["Berlin"]), a count index as a decimal
// number ([0]).
func Parse(s string) (Address, error) {
	segs, err := segments(s)
	if err != nil {
		return Address{}, err
	}
	var a Address
	i := 0
	for i < len(segs) && segs[i].name == ModuleKeyword {
		if segs[i].key != "" {
			return Address{}, fmt.Errorf("%q: the key goes after the module's name, like module.dach[\"de\"]", s)
		}
		if i+1 >= len(segs) {
			return Address{}, fmt.Errorf("%q: module is followed by the module's name, like module.dach", s)
		}
		a.Module = append(a.Module, Step{Name: segs[i+1].name, Key: segs[i+1].key})
		i += 2
	}
	rest := segs[i:]
	switch {
	case len(rest) == 0:
		return a, nil
	case len(rest) != 2:
		return Address{}, fmt.Errorf("%q is not an address: an address is a kind and a name, like search.cto, after module.NAME steps when inside a module", s)
	case rest[0].key != "":
		return Address{}, fmt.Errorf("%q: the key goes after the block's name, like search.cto[\"Berlin\"]", s)
	}
	a.Kind, a.Name, a.Key = kind.Kind(rest[0].name), rest[1].name, rest[1].key
	return a, nil
}

// IsModule reports whether a names a module (or one of its instances)
// rather than a block.
func (a Address) IsModule() bool { return a.Kind == kind.None }

// ModulePath is the module calls of a as written: module.dach["de"], ""
// for a block of the root.
func (a Address) ModulePath() string {
	var b strings.Builder
	writeSteps(&b, a.Module)
	return b.String()
}

// String writes a in its canonical form.
func (a Address) String() string {
	var b strings.Builder
	writeSteps(&b, a.Module)
	if a.Kind != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(a.Kind))
		b.WriteByte('.')
		b.WriteString(a.Name)
		b.WriteString(a.Key)
	}
	return b.String()
}

// Block is a without its instance key: the address of its block (for a
// module address, of its module call).
func (a Address) Block() Address {
	if a.Kind == kind.None && len(a.Module) > 0 {
		m := append([]Step(nil), a.Module...)
		m[len(m)-1].Key = ""
		return Address{Module: m}
	}
	a.Key = ""
	return a
}

func writeSteps(b *strings.Builder, steps []Step) {
	for i, st := range steps {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(ModuleKeyword)
		b.WriteByte('.')
		b.WriteString(st.Name)
		b.WriteString(st.Key)
	}
}

// segment is one name of an address with the key that follows it.
type segment struct{ name, key string }

// segments cuts s into its names and keys.
func segments(s string) ([]segment, error) {
	var out []segment
	err := eachSegment(s, func(seg segment) { out = append(out, seg) })
	return out, err
}

// eachSegment calls f with each name of s and the key that follows it, in
// order, and says what is wrong with s, if anything (f may have been
// called for the segments before the mistake).
func eachSegment(s string, f func(segment)) error {
	i := 0
	for {
		start := i
		for i < len(s) && isNameByte(s[i], i == start) {
			i++
		}
		if i == start {
			return fmt.Errorf("%q is not an address: a name is expected at character %d", s, start+1)
		}
		seg := segment{name: s[start:i]}
		if i < len(s) && s[i] == '[' {
			n, err := keyLen(s[i:])
			if err != nil {
				return fmt.Errorf("%q is not an address: %v", s, err)
			}
			seg.key = s[i : i+n]
			i += n
		}
		f(seg)
		if i == len(s) {
			return nil
		}
		if s[i] != '.' {
			return fmt.Errorf("%q is not an address: %q at character %d", s, s[i], i+1)
		}
		i++
	}
}

func isNameByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

// keyLen returns the length of the key at the start of s ("[...]"):
// a quoted string or a whole number.
func keyLen(s string) (int, error) {
	if len(s) < 3 {
		return 0, fmt.Errorf("an unfinished key")
	}
	if s[1] == '"' {
		for i := 2; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				if i+1 < len(s) && s[i+1] == ']' {
					if _, err := strconv.Unquote(s[1 : i+1]); err != nil {
						return 0, fmt.Errorf("the key %s is not a valid quoted string", s[1:i+1])
					}
					return i + 2, nil
				}
				return 0, fmt.Errorf("a key is a quoted string or a number in brackets")
			}
		}
		return 0, fmt.Errorf("an unfinished key")
	}
	i := 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != ']' {
		return 0, fmt.Errorf("a key is a quoted string, like [\"Berlin\"], or a number, like [0]")
	}
	return i + 1, nil
}

// StringKey is the key of a for_each instance: ["key"].
func StringKey(k string) string { return "[" + strconv.Quote(k) + "]" }

// IndexKey is the key of a count instance: [i].
func IndexKey(i int) string { return "[" + strconv.Itoa(i) + "]" }

// Kind is the kind of the block addr names (search, profile, ...), read
// without building the address; kind.None for a module address or a
// string that is no address.
func Kind(addr string) kind.Kind {
	if !strings.HasPrefix(addr, ModuleKeyword+".") {
		k, _, ok := strings.Cut(addr, ".")
		if !ok {
			return kind.None
		}
		return kind.Kind(k)
	}
	// Without building the address: pairs of a name and a name with an
	// optional key, every pair but the last module.NAME; the first name
	// of the last pair is the kind (module for a module address).
	n, firstOther := 0, -1
	var last segment
	err := eachSegment(addr, func(seg segment) {
		if n%2 == 0 {
			if (seg.name != ModuleKeyword || seg.key != "") && firstOther < 0 {
				firstOther = n
			}
			last = seg
		}
		n++
	})
	if err != nil || n%2 != 0 || (firstOther >= 0 && firstOther != n-2) || last.key != "" || last.name == ModuleKeyword {
		return kind.None
	}
	return kind.Kind(last.name)
}

// Block is addr without its instance key: the address of its block.
// A string that is no address is returned as is.
func Block(addr string) string {
	if !strings.HasPrefix(addr, ModuleKeyword+".") {
		if i := strings.IndexByte(addr, '['); i > 0 {
			return addr[:i]
		}
		return addr
	}
	a, err := Parse(addr)
	if err != nil {
		return addr
	}
	return a.Block().String()
}

// Contains reports whether p, read as a pattern, names a: p itself; every
// instance of a block (search.cto names search.cto["Berlin"]); everything
// inside a module (module.dach names module.dach.search.cto and, when the
// call has for_each or count, every instance, module.dach["de"].search.cto).
// A pattern step without a key matches every instance of its call.
func (p Address) Contains(a Address) bool {
	if len(a.Module) < len(p.Module) {
		return false
	}
	for i, st := range p.Module {
		if st.Name != a.Module[i].Name || (st.Key != "" && st.Key != a.Module[i].Key) {
			return false
		}
	}
	if p.Kind == "" {
		return true
	}
	return len(a.Module) == len(p.Module) && p.Kind == a.Kind && p.Name == a.Name && (p.Key == "" || p.Key == a.Key)
}

// Join puts rel (an address inside a module) under the module path mod
// ("" for the root).
func Join(mod, rel string) string {
	if mod == "" {
		return rel
	}
	if rel == "" {
		return mod
	}
	return mod + "." + rel
}

// SortKey is an address read for sorting, computed once: sorting many
// addresses with it saves reading each address again at every comparison.
type SortKey struct {
	segs []segment
	text string
	bad  bool
}

// NewSortKey reads addr for sorting.
func NewSortKey(addr string) SortKey {
	segs, err := segments(addr)
	return SortKey{segs: segs, text: addr, bad: err != nil}
}

// Less orders addresses segment by segment, count indexes by number
// (search.x[2] before search.x[10]) and other keys as written; strings
// that are no address come after those that are, in text order.
func (k SortKey) Less(o SortKey) bool {
	if k.bad || o.bad {
		if k.bad != o.bad {
			return !k.bad
		}
		return k.text < o.text
	}
	return compareSegments(k.segs, o.segs) < 0
}

func compareSegments(a, b []segment) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i].name, b[i].name); c != 0 {
			return c
		}
		if c := compareKeys(a[i].key, b[i].key); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// compareKeys orders keys: none first, then numbers by value, then
// strings as written.
func compareKeys(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" || b == "" {
		if a == "" {
			return -1
		}
		return 1
	}
	na, ea := index(a)
	nb, eb := index(b)
	switch {
	case ea && eb:
		return na - nb
	case ea:
		return -1
	case eb:
		return 1
	}
	return strings.Compare(a, b)
}

// index reads a count index key ([12]) without allocating; false for a
// string key.
func index(key string) (int, bool) {
	if len(key) < 3 || key[1] < '0' || key[1] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(key[1 : len(key)-1])
	return n, err == nil
}
