package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// MaxNesting is how deeply brackets, braces, parentheses and template
// interpolations may nest in a configuration. The HCL parser descends
// recursively: tens of thousands of levels exhaust the stack and crash the
// process, which must never happen on bad input. No real configuration
// comes close.
const MaxNesting = 256

// CheckNesting returns an error diagnostic when src (the file name) nests
// deeper than MaxNesting, at the place where it does; nil otherwise. It
// skips comments and counts the interpolations of quoted strings, a
// cheap scan made before parsing.
func CheckNesting(name string, src []byte) *hcl.Diagnostic {
	depth := 0
	line, col := 1, 1
	inString := 0 // depth at which the current quoted string was opened, +1; 0: not in one
	var strings []int
	for i := 0; i < len(src); i++ {
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		if inString > 0 {
			switch {
			case c == '\\':
				i++
				col++
			case c == '"':
				inString = 0
				if n := len(strings); n > 0 {
					strings = strings[:n-1]
				}
			case (c == '$' || c == '%') && next == '{':
				i++
				col++
				depth++
				strings = append(strings, -depth) // an interpolation inside the string
				inString = 0
			}
		} else {
			switch {
			case c == '#' || (c == '/' && next == '/'):
				for i < len(src) && src[i] != '\n' {
					i++
				}
				i--
				continue
			case c == '/' && next == '*':
				i += 2
				for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
					if src[i] == '\n' {
						line, col = line+1, 1
					}
					i++
				}
				i++
				continue
			case c == '"':
				strings = append(strings, depth)
				inString = 1
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				if n := len(strings); c == '}' && n > 0 && strings[n-1] == -depth {
					// The end of an interpolation: back into its string.
					strings = strings[:n-1]
					inString = 1
				}
				depth = max(depth-1, 0)
			}
		}
		if depth > MaxNesting {
			pos := hcl.Pos{Line: line, Column: col, Byte: i}
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Expression nested too deeply",
				Detail:   fmt.Sprintf("Brackets, braces, parentheses and interpolations nest more than %d levels deep here. No configuration needs that many; simplify the expression (locals can hold its parts).", MaxNesting),
				Subject:  &hcl.Range{Filename: name, Start: pos, End: pos},
			}
		}
	}
	return nil
}
