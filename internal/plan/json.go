package plan

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the plan as one JSON object (design.md): the machine
// form that plan --json and show --json print; lists are [], never null.
// The human form is drawn by internal/views.
func WriteJSON(w io.Writer, p *Plan) error {
	p.normalize()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}
