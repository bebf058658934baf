package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/views"
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
			if err := views.ValidateSuccess(f.IO.Out, cfg); err != nil {
				return err
			}
		}
	}
	if diags.HasErrors() {
		return silentExit(ExitError)
	}
	return nil
}
