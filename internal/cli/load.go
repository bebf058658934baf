package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
)

// loadConfig loads the configuration of f.Dir with the variable flags vars and
// the environment, checking filters against the cached live catalog when
// `leadsync fields --refresh` has written one. The Config is never nil.
func loadConfig(f *Factory, vars arguments.Vars) (*config.Config, hcl.Diagnostics) {
	return loadConfigWith(f, vars, false)
}

// loadConfigNoLists is loadConfig without reading the list files of
// exclude and import blocks: for commands that need only where the state
// is (a broken customer list must not stop an erasure), and for shell
// completion.
func loadConfigNoLists(f *Factory, vars arguments.Vars) (*config.Config, hcl.Diagnostics) {
	return loadConfigWith(f, vars, true)
}

func loadConfigWith(f *Factory, vars arguments.Vars, skipLists bool) (*config.Config, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var env []string
	if f.Environ != nil {
		env = f.Environ()
	}
	cachePath := filepath.Join(f.Dir, catalog.CachePath)
	cat, err := catalog.LoadCache(cachePath)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		// Usually a stray file named .leadsync: say that, not "invalid cache".
		dir := filepath.Dir(cachePath)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Not a folder: " + filepath.Base(dir),
			Detail: fmt.Sprintf("%s is a file, but leadsync keeps its field catalog cache (and, by default, its state) in a folder of that name. "+
				"Move the file away or rename it; leadsync creates the folder.", dir),
		})
		cat = nil
	case err != nil:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid field catalog cache",
			Detail:   err.Error() + ".",
		})
		cat = nil // check the rest against the built-in list
	}
	cfg, ds := config.Load(config.LoadOptions{Dir: f.Dir, Environ: env, Catalog: cat, Workspace: f.workspace(),
		Vars: vars.Vars, VarFiles: vars.Files, SkipListFiles: skipLists})
	diags = append(diags, ds...)
	if !ds.HasErrors() {
		diags = append(diags, overrideBaseURL(f, cfg)...)
	}
	return cfg, diags
}

// EnvBaseURL overrides the api block's addresses (base_url and
// base_url_v2): a configuration written for the real service runs against
// `leadsync sandbox` (both generations on one address) or a staging
// service without an edit.
const EnvBaseURL = "LEADSYNC_BASE_URL"

// overrideBaseURL applies LEADSYNC_BASE_URL to cfg, checked as base_url is.
func overrideBaseURL(f *Factory, cfg *config.Config) hcl.Diagnostics {
	if f.Getenv == nil {
		return nil
	}
	v := strings.TrimSpace(f.Getenv(EnvBaseURL))
	if v == "" {
		return nil
	}
	err := config.CheckBaseURL(v)
	if err == nil {
		err = config.CheckBasePath(v, false)
	}
	if err == nil && cfg.API.Sandbox {
		err = errors.New("the api block sets sandbox = true, whose service runs in the process and has no address; unset " + EnvBaseURL + ", or set sandbox = false")
	}
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + EnvBaseURL,
			Detail: fmt.Sprintf("%s=%s: %s.", EnvBaseURL, v, strings.TrimSuffix(err.Error(), "."))}}
	}
	v = strings.TrimSuffix(v, "/")
	cfg.API.BaseURL, cfg.API.BaseURLV2 = v, v
	return nil
}
