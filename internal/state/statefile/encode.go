package statefile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/leadsync/leadsync/internal/state"
)

// The writers below produce exactly what encoding/json (without HTML
// escaping) produces for Person and Search, several times faster; a test
// compares them.

const hexDigits = "0123456789abcdef"

// appendStr appends s as a JSON string, escaping as encoding/json does with
// SetEscapeHTML(false).
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// appendPerson appends p as encoding/json would; the rarely present profile
// and raw data go through marshal.
func appendPerson(b []byte, p *state.Person) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendStr(b, p.ID)
	b = append(b, `,"lead":`...)
	b = appendLead(b, &p.Lead)
	b = append(b, `,"first_seen":`...)
	b = appendTime(b, p.FirstSeen)
	b = append(b, `,"last_seen":`...)
	b = appendTime(b, p.LastSeen)
	b = append(b, `,"found_by":`...)
	b = appendStrings(b, p.FoundBy)
	if p.Profile != nil {
		pb, err := Marshal(p.Profile)
		if err != nil {
			return b, err
		}
		b = append(b, `,"profile":`...)
		b = append(b, pb...)
	}
	if p.ProfileReadAt != nil {
		b = append(b, `,"profile_read_at":`...)
		b = appendTime(b, *p.ProfileReadAt)
	}
	if e := p.Enrichment; e != nil {
		b = append(b, `,"enrichment":{"enriched_at":`...)
		b = appendTime(b, e.EnrichedAt)
		b = append(b, `,"by":`...)
		b = appendStr(b, e.By)
		b = append(b, `,"result":`...)
		b = appendEnriched(b, &e.Result)
		if e.CopiedBy != "" {
			b = append(b, `,"copied_by":`...)
			b = appendStr(b, e.CopiedBy)
		}
		b = append(b, '}')
	}
	if len(p.Raw) > 0 {
		rb, err := Marshal(p.Raw)
		if err != nil {
			return b, err
		}
		b = append(b, `,"raw":`...)
		b = append(b, rb...)
	}
	if len(p.History) > 0 {
		b = appendHistory(b, p.History)
	}
	if p.Status != "" {
		b = append(b, `,"status":`...)
		b = appendStr(b, p.Status)
	}
	if p.StatusSince != nil {
		b = append(b, `,"status_since":`...)
		b = appendTime(b, *p.StatusSince)
	}
	if p.CheckedAt != nil {
		b = append(b, `,"checked_at":`...)
		b = appendTime(b, *p.CheckedAt)
	}
	if p.CheckedGeneration != 0 {
		b = append(b, `,"checked_generation":`...)
		b = strconv.AppendInt(b, int64(p.CheckedGeneration), 10)
	}
	if len(p.Tracked) > 0 {
		b = appendTracked(b, p.Tracked)
	}
	return append(b, '}'), nil
}

// appendHistory appends a person's "history" member.
func appendHistory(b []byte, history []state.Drift) []byte {
	b = append(b, `,"history":[`...)
	for i := range history {
		h := &history[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"field":`...)
		b = appendStr(b, h.Field)
		b = append(b, `,"before":`...)
		b = appendStr(b, h.Before)
		b = append(b, `,"after":`...)
		b = appendStr(b, h.After)
		b = append(b, `,"at":`...)
		b = appendTime(b, h.At)
		b = append(b, `,"by":`...)
		b = appendStr(b, h.By)
		b = append(b, `,"call":`...)
		b = appendStr(b, h.Call)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendTracked appends a person's "tracked" member, by track address in
// order.
func appendTracked(b []byte, tracked map[string]time.Time) []byte {
	b = append(b, `,"tracked":{`...)
	for i, addr := range slices.Sorted(maps.Keys(tracked)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, addr)
		b = append(b, ':')
		b = appendTime(b, tracked[addr])
	}
	return append(b, '}')
}

// appendSearch appends s as encoding/json would.
func appendSearch(b []byte, s *state.Search) ([]byte, error) {
	b = append(b, `{"address":`...)
	b = appendStr(b, s.Address)
	b = append(b, `,"generation":`...)
	b = strconv.AppendInt(b, int64(s.Generation), 10)
	b = append(b, `,"request":`...)
	if len(s.Request) == 0 {
		b = append(b, "null"...)
	} else {
		rb, err := Marshal(s.Request)
		if err != nil {
			return b, err
		}
		b = append(b, rb...)
	}
	b = append(b, `,"request_hash":`...)
	b = appendStr(b, s.RequestHash)
	b = append(b, `,"ran_at":`...)
	b = appendTime(b, s.RanAt)
	b = append(b, `,"result_count":`...)
	b = strconv.AppendInt(b, int64(s.ResultCount), 10)
	b = append(b, `,"max_results":`...)
	b = strconv.AppendInt(b, int64(s.MaxResults), 10)
	b = append(b, `,"capped":`...)
	b = strconv.AppendBool(b, s.Capped)
	b = append(b, `,"lead_ids":`...)
	b = appendStrings(b, s.LeadIDs)
	b = append(b, `,"added":`...)
	b = strconv.AppendInt(b, int64(s.Added), 10)
	b = append(b, `,"removed":`...)
	b = strconv.AppendInt(b, int64(s.Removed), 10)
	b = append(b, `,"runs":`...)
	b = strconv.AppendInt(b, int64(s.Runs), 10)
	if s.Changed != 0 {
		b = append(b, `,"changed":`...)
		b = strconv.AppendInt(b, int64(s.Changed), 10)
	}
	if s.Suppressed != 0 {
		b = append(b, `,"suppressed":`...)
		b = strconv.AppendInt(b, int64(s.Suppressed), 10)
	}
	if s.Split != nil {
		sb, err := Marshal(s.Split)
		if err != nil {
			return b, err
		}
		b = append(b, `,"split":`...)
		b = append(b, sb...)
	}
	return append(b, '}'), nil
}

// encodeHeader writes the opening brace and the header's fields of s
// (format, lineage, serial, version, service, configuration).
func encodeHeader(w *bufio.Writer, s *state.State) {
	str := func(v string) []byte { b, _ := json.Marshal(v); return b }
	fmt.Fprintf(w, "{\n  \"format_version\": %d,\n  \"lineage\": %s,\n  \"serial\": %d,\n  \"leadsync_version\": %s,\n",
		s.FormatVersion, str(s.Lineage), s.Serial, str(s.LeadsyncVersion))
	if s.Service != "" {
		fmt.Fprintf(w, "  \"service\": %s,\n", str(s.Service))
	}
	if s.Configuration != "" {
		fmt.Fprintf(w, "  \"configuration\": %s,\n", str(s.Configuration))
	}
}

// encodeState writes s as JSON: top-level fields one per line and each
// search, profile, failure and person on a line of its own, keys sorted, so
// that the file is stable, diffable and quick to write and read.
func encodeState(w *bufio.Writer, s *state.State) error {
	if err := encodeRecords(w, s); err != nil {
		return err
	}
	// The people map last in the file.
	if err := writeMapWith(w, "people", s.People, true, appendPerson); err != nil {
		return err
	}
	_, err := w.WriteString("}\n")
	return err
}

// encodeRecords writes the opening brace and every field of s before the
// people, each followed by a comma.
func encodeRecords(w *bufio.Writer, s *state.State) error {
	put := func(b []byte, err error) error {
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	encodeHeader(w, s)
	if s.Journal != nil {
		w.WriteString("  \"journal\": ")
		if err := put(Marshal(s.Journal)); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	w.WriteString("  \"usage\": ")
	if err := put(Marshal(&s.Usage)); err != nil {
		return err
	}
	w.WriteString(",\n")
	w.WriteString("  \"suppressed\": ")
	sup := s.Suppressed
	if sup == nil {
		sup = []*state.Suppression{}
	}
	if err := put(Marshal(sup)); err != nil {
		return err
	}
	w.WriteString(",\n")
	if err := writeMapWith(w, "searches", s.Searches, false, appendSearch); err != nil {
		return err
	}
	if err := writeMap(w, "profiles", s.Profiles, false); err != nil {
		return err
	}
	if err := writeMap(w, "failures", s.Failures, false); err != nil {
		return err
	}
	if len(s.UnknownEnrichments) > 0 {
		if err := writeMap(w, "unknown_enrichments", s.UnknownEnrichments, false); err != nil {
			return err
		}
	}
	if len(s.ErasedEnrichments) > 0 {
		w.WriteString("  \"erased_enrichments\": ")
		if err := put(Marshal(s.ErasedEnrichments)); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	if len(s.Splits) > 0 {
		if err := writeMap(w, "splits", s.Splits, false); err != nil {
			return err
		}
	}
	if len(s.Imports) > 0 {
		if err := writeMap(w, "imports", s.Imports, false); err != nil {
			return err
		}
	}
	if len(s.Marks) > 0 {
		w.WriteString("  \"marks\": ")
		if err := put(Marshal(s.Marks)); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	return nil
}

func writeMap[T any](w *bufio.Writer, name string, m map[string]*T, last bool) error {
	return writeMapWith(w, name, m, last, func(b []byte, v *T) ([]byte, error) {
		vb, err := Marshal(v)
		return append(b, vb...), err
	})
}

// writeMapWith writes one map, one entry per line, keys sorted; enc appends
// the JSON of a value.
func writeMapWith[T any](w *bufio.Writer, name string, m map[string]*T, last bool, enc func([]byte, *T) ([]byte, error)) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "  %q: {", name)
	var b []byte
	for i, k := range keys {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendStr(b, k)
		b = append(b, ": "...)
		var err error
		if m[k] == nil {
			b = append(b, "null"...)
		} else if b, err = enc(b, m[k]); err != nil {
			return fmt.Errorf("%s %q: %w", name, k, err)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		w.WriteString("\n  ")
	}
	if last {
		_, err := w.WriteString("}\n")
		return err
	}
	_, err := w.WriteString("},\n")
	return err
}
