package statefile

import (
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// decodeError locates a decoding problem in the file.
type decodeError struct {
	offset    int64
	msg       string
	newer     int    // format_version, when the file says it is newer
	writtenBy string // leadsync_version, when known
	// path holds the keys and indexes leading to the problem, innermost
	// first: it is collected only on the way out of a failed decode.
	path []string
}

func (e *decodeError) Error() string {
	if len(e.path) == 0 {
		return e.msg
	}
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		p := e.path[i]
		switch {
		case strings.HasPrefix(p, "["):
			b.WriteString(p)
		case b.Len() > 0 && (strings.ContainsAny(p, ".[]\"\\ ") || p == ""):
			b.WriteString("[" + strconv.Quote(p) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String() + ": " + e.msg
}

// decodeState parses a state file with the fast decoder. The strings of the
// result share memory with src.
func decodeState(src string) (*state.State, error) {
	if strings.TrimSpace(src) == "" {
		return nil, &decodeError{msg: "the file is empty"}
	}
	return decodeFast(src)
}

// jsonKind names a Go type the way a JSON reader would.
func jsonKind(t string) string {
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object"
}
