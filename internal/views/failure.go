package views

import (
	"encoding/json"
	"io"
	"time"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/version"
)

// JSONFailure writes the --json document of command, which failed with
// msg after reporting diags on stderr (when none, msg becomes the one
// diagnostic): the command's own schema where one fits (plan: an empty
// plan created at now with the diagnostics; export: nothing written),
// for apply an event line {"message_type": "error", ...}, else
// {"format_version", "error", "diagnostics"}. CI can always read one.
func JSONFailure(w io.Writer, command, msg string, diags []DiagnosticJSON, now time.Time) {
	if diags == nil {
		diags = []DiagnosticJSON{}
	}
	if len(diags) == 0 {
		diags = append(diags, DiagnosticJSON{Severity: "error", Summary: msg})
	}
	switch command {
	case "plan":
		p := &plan.Plan{FormatVersion: plan.FormatVersion, LeadsyncVersion: version.String(), CreatedAt: now.UTC()}
		p.Diagnostics = PlanDiagnostics(diags)
		_ = plan.WriteJSON(w, p)
	case "export":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			FormatVersion string           `json:"format_version"`
			Written       []WrittenJSON    `json:"written"`
			Error         string           `json:"error"`
			Diagnostics   []DiagnosticJSON `json:"diagnostics"`
		}{"1", []WrittenJSON{}, msg, diags})
	case "apply":
		ev := map[string]any{"format_version": "1", "message_type": "error", "timestamp": now.UTC().Format(time.RFC3339Nano),
			"error": msg, "diagnostics": diags}
		b, _ := json.Marshal(ev)
		_, _ = w.Write(append(b, '\n'))
	default:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(jsonFailure{FormatVersion: "1", Error: msg, Diagnostics: diags})
	}
}

// jsonFailure is the document of a failed command without a schema of its
// own for failures.
type jsonFailure struct {
	FormatVersion string           `json:"format_version"`
	Error         string           `json:"error"`
	Diagnostics   []DiagnosticJSON `json:"diagnostics"`
}

// PlanDiagnostics are diags in the plan's JSON form.
func PlanDiagnostics(diags []DiagnosticJSON) []plan.Diagnostic {
	out := make([]plan.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := plan.Diagnostic{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail}
		if r := d.Range; r != nil {
			pd.Range = &plan.DiagnosticRange{
				Filename: r.Filename,
				Start:    plan.DiagnosticPos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:      plan.DiagnosticPos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
			}
		}
		out = append(out, pd)
	}
	return out
}
