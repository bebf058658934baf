package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/textfmt"
)

func newValidateCmd(f *Factory) *cobra.Command {
	var fl arguments.ValidateFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the configuration offline; no calls",
		Long: `Validate reads every *.leads.hcl of the working directory and the variable
values, and checks everything that needs no call: the language, references,
the service's rules for every search, profile, enrich and export. It reports
all problems at once and exits 1 when there is an error.`,
		Example: `  leadsync validate
  leadsync validate --json --var-file prod.leadvars.hcl`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseValidate, func(_ *cobra.Command, a *arguments.Validate) error {
		return runValidate(f, a)
	})
	return cmd
}

func runValidate(f *Factory, a *arguments.Validate) error {
	cfg, diags := loadConfig(f, a.Vars)
	if a.View == arguments.ViewJSON {
		writeDiagnosticsJSON(f.IO.Out, diags, cfg)
	} else {
		writeDiagnostics(f, cfg, diags)
		if !diags.HasErrors() {
			fmt.Fprintf(f.IO.Out, "Success! The configuration is valid: %s.\n", summarize(cfg))
			if note := liveCatalogNote(cfg); note != "" {
				fmt.Fprintln(f.IO.Out, note)
			}
		}
	}
	if diags.HasErrors() {
		return silentExit(ExitError)
	}
	return nil
}

// summarize counts what a configuration declares, for the success line.
func summarize(cfg *config.Config) string {
	blocks := map[string]bool{}
	for _, s := range cfg.Searches {
		blocks[s.Block] = true
	}
	searchBlocks := len(blocks)
	tracks := ""
	if n := len(cfg.Tracks); n > 0 {
		tracks = ", " + textfmt.Plural(n, "track block")
	}
	s := fmt.Sprintf("%s (%s), %s, %s%s, %s",
		textfmt.Plural(searchBlocks, "search block"), textfmt.Plural(len(cfg.Searches), "search"),
		textfmt.Plural(len(cfg.Profiles), "profile"), textfmt.Plural(len(cfg.Enriches), "enrich block"), tracks,
		textfmt.Plural(len(cfg.Exports), "export"))
	if len(cfg.Modules) > 0 {
		// Counted across every module instance, which the modules add.
		s += ", in " + textfmt.Plural(len(cfg.Modules), "module instance") + " and the root"
	}
	return s
}
