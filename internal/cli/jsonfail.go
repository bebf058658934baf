package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/leadsync/leadsync/internal/views"
)

// A command run with --json promises one JSON document on stdout (apply:
// one event per line) whatever happens, so that CI can always read it. A
// command that fails before it printed its document (an invalid
// configuration, a missing key, a locked state, a bad flag) gets one here:
// the command's own schema where one fits (plan: an empty plan with the
// diagnostics), else {"format_version", "error", "diagnostics"}; for apply
// an event line {"message_type": "error", ...}.

// failureLog collects what a failing command reported on stderr, for its
// JSON document: the diagnostics (scrubbed as printed) and error messages.
type failureLog struct {
	diags    []jsonDiagnostic
	messages []string
}

func (l *failureLog) addDiags(cfg *config.Config, diags hcl.Diagnostics) {
	if l == nil {
		return
	}
	l.diags = append(l.diags, diagnosticsJSON(diags, cfg).Diagnostics...)
}

func (l *failureLog) addMessage(msg string) {
	if l == nil || msg == "" {
		return
	}
	l.messages = append(l.messages, msg)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// jsonRequested reports whether the command that ran was asked for JSON:
// its --json flag, or (when flag parsing failed) --json among the args.
func jsonRequested(cmd *cobra.Command, args []string) bool {
	if cmd != nil && cmd.Flags().Lookup("json") != nil {
		if v, err := cmd.Flags().GetBool("json"); err == nil && v {
			return true
		}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return cmd == nil || cmd.Flags().Lookup("json") != nil
		}
	}
	return false
}

// writeJSONFailure writes the document of a command that failed with err
// after reporting log on stderr (views.JSONFailure).
func writeJSONFailure(w io.Writer, cmd *cobra.Command, err error, log *failureLog, now time.Time) {
	name := ""
	if cmd != nil {
		name = cmd.Name()
	}
	views.JSONFailure(w, name, failureMessage(err, log), log.diags, now)
}

// failureMessage is the one-line error of a failed command: the error
// returned, else what it reported.
func failureMessage(err error, log *failureLog) string {
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		return err.Error()
	}
	if len(log.messages) > 0 {
		return strings.Join(log.messages, "; ")
	}
	for _, d := range log.diags {
		if d.Severity == "error" {
			return d.Summary
		}
	}
	return "the command failed"
}

// markdownRequested reports whether the command that ran (plan or show)
// was asked for a pull-request comment with --markdown.
func markdownRequested(cmd *cobra.Command, args []string) bool {
	if cmd == nil || cmd.Flags().Lookup("markdown") == nil {
		return false
	}
	if v, err := cmd.Flags().GetBool("markdown"); err == nil && v {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--markdown" || a == "--markdown=true" {
			return true
		}
	}
	return false
}

// writeMarkdownFailure writes the comment of a --markdown command that
// failed with err after reporting log on stderr: CI posts it instead of
// an empty comment.
func writeMarkdownFailure(w io.Writer, cmd *cobra.Command, err error, log *failureLog) {
	diags := views.PlanDiagnostics(log.diags)
	msg := failureMessage(err, log)
	if len(diags) > 0 && len(log.messages) == 0 {
		msg = fmt.Sprintf("the configuration has %s", errorCount(diags))
	}
	_ = views.FailureMarkdown(w, cmd.Name(), msg, diags)
}

// errorCount says how many errors diags holds: "1 error", "3 errors".
func errorCount(diags []plan.Diagnostic) string {
	n := 0
	for _, d := range diags {
		if d.Severity == "error" {
			n++
		}
	}
	return textfmt.Plural(n, "error")
}
