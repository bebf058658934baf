package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// validateOptions are the inputs of `leadsync validate`.
type validateOptions struct {
	json bool
	vars varFlags
}

func newValidateCmd(f *Factory) *cobra.Command {
	opts := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the configuration offline; no calls",
		Long: `Validate reads every *.leads.hcl of the working directory and the variable
values, and checks everything that needs no call: the language, references,
the service's rules for every search, profile, enrich and export. It reports
all problems at once and exits 1 when there is an error.`,
		Example: `  leadsync validate
  leadsync validate --json --var-file prod.leadvars.hcl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the diagnostics as one JSON object (for CI)")
	opts.vars.register(cmd)
	return cmd
}

func runValidate(f *Factory, opts *validateOptions) error {
	cfg, diags := loadConfig(f, &opts.vars)
	if opts.json {
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
	s := fmt.Sprintf("%s (%s), %s, %s, %s",
		textfmt.Plural(searchBlocks, "search block"), textfmt.Plural(len(cfg.Searches), "search"),
		textfmt.Plural(len(cfg.Profiles), "profile"), textfmt.Plural(len(cfg.Enriches), "enrich block"),
		textfmt.Plural(len(cfg.Exports), "export"))
	if len(cfg.Modules) > 0 {
		// Counted across every module instance, which the modules add.
		s += ", in " + textfmt.Plural(len(cfg.Modules), "module instance") + " and the root"
	}
	return s
}
