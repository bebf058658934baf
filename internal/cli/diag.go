package cli

import (
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/views"
)

// The diagnostics' text and JSON forms are views.Diagnostics and
// views.DiagnosticsJSON; cli picks the stream and the colour and masks
// what is sensitive. The names below keep the commands' calls short.
type (
	jsonDiagnostics = views.DiagnosticsJSON
	jsonDiagnostic  = views.DiagnosticJSON
)

// writeDiagnostics renders diags to f.IO.ErrOut like Terraform (records
// them for a --json failure document too). Colour only when stderr is a
// terminal and colour is not disabled. Sensitive values never appear: cfg
// masks them in snippets and messages.
func writeDiagnostics(f *Factory, cfg *config.Config, diags hcl.Diagnostics) {
	f.failures.addDiags(cfg, diags)
	views.Diagnostics(f.IO.ErrOut, cfg.DiagFiles(), cfg.ScrubDiagnostics(diags), f.IO.ColorErr())
}

// renderWithFiles renders diags with snippets taken from files.
func renderWithFiles(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool) {
	views.Diagnostics(w, files, diags, color)
}

// diagnosticsJSON builds the JSON form of diags (masked like the text form).
func diagnosticsJSON(diags hcl.Diagnostics, cfg *config.Config) jsonDiagnostics {
	return views.NewDiagnosticsJSON(cfg.DiagFiles(), cfg.ScrubDiagnostics(diags))
}

// writeDiagnosticsJSON writes diags as one JSON object with format_version
// "1", valid, error_count, warning_count and diagnostics (never null).
func writeDiagnosticsJSON(w io.Writer, diags hcl.Diagnostics, cfg *config.Config) {
	_ = views.WriteDiagnosticsJSON(w, diagnosticsJSON(diags, cfg))
}
