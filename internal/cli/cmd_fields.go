package cli

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newFieldsCmd(f *Factory) *cobra.Command {
	var fl arguments.FieldsFlags
	cmd := &cobra.Command{
		Use:   "fields",
		Short: "Print the searchable-field catalog; --refresh fetches it live",
		Long: `Fields prints the catalog search filters are checked against: each
attribute of a search block, the service's parameter name, its type and, for
array filters, the only values accepted.

Without --refresh it makes no call and prints the cached live list
(.leadsync/fields.json) when there is one, else the built-in list of the
specification. --refresh reads the list from the service (one call, which
counts against the rate limit and the monthly quota) and caches it;
validate and plan then check against it and say so.`,
		Example: `  leadsync fields
  leadsync fields --refresh
  leadsync fields --json | jq '.fields[] | select(.type == "array") | .attribute'`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseFields, func(cmd *cobra.Command, a *arguments.Fields) error {
		return runFields(cmd.Context(), f, a)
	})
	return cmd
}

func runFields(ctx context.Context, f *Factory, a *arguments.Fields) error {
	asJSON := a.View == arguments.ViewJSON
	cachePath := filepath.Join(f.Dir, catalog.CachePath)
	old, err := catalog.LoadCache(cachePath)
	if err != nil && !a.Refresh {
		return err
	}
	if old == nil {
		old = catalog.Default()
	}
	view := views.NewFields(viewStreams(f), asJSON, f.IO.TextWidth(76))
	if !a.Refresh {
		return view.Catalog(old)
	}

	cfg, diags := loadConfig(f, a.Vars)
	if diags.HasErrors() {
		writeDiagnostics(f, cfg, diags)
		// A stale catalog can itself be why the configuration is invalid
		// (a value the service added): refresh anyway when the api block
		// is usable, so that the user can get out of that.
		if !cfg.API.Sandbox && cfg.API.BaseURL == "" {
			return silentExit(ExitError)
		}
		view.RefreshingDespiteErrors()
	}
	client, err := newServiceClient(f, cfg)
	if err != nil {
		return err
	}
	now := f.now()
	fresh, fetched, err := run.RefreshFields(ctx, client, cachePath, now)
	if fe := (*run.FieldsError)(nil); errors.As(err, &fe) {
		return reportAPIError(f, "reading the field list", fe.Err)
	}
	if err != nil {
		return err
	}
	view.Refreshed(old, fresh, fetched, cfg.API.Sandbox)
	return view.Catalog(fresh)
}
