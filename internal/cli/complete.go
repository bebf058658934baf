package cli

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

// Shell completion of addresses: --target and --replace offer the
// configuration's addresses, state show and state rm those in the state.
// Completion reads the configuration and the state quietly (nothing is
// printed, nothing is written, no call is made) and offers nothing when
// they cannot be read.

// completionDir is the working directory a completion is for: --chdir is
// parsed by then, but the root's PersistentPreRun (which applies it) does
// not run for completions.
func completionDir(f *Factory, cmd *cobra.Command) string {
	dir := f.Dir
	if fl := cmd.Flag("chdir"); fl != nil && fl.Value.String() != "" {
		ch := fl.Value.String()
		if filepath.IsAbs(ch) {
			return ch
		}
		dir = filepath.Join(dir, ch)
	}
	return dir
}

// configAddresses lists the addresses of the configuration in dir: every
// search and profile instance and block, and every module call and
// instance (everything inside it); with all, the enrich and export blocks
// too.
func configAddresses(f *Factory, dir string, all bool) []string {
	g := *f
	g.Dir = dir
	cfg, _ := loadConfigNoLists(&g, arguments.Vars{})
	if cfg == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, s := range cfg.Searches {
		add(s.Block)
		add(s.Address)
	}
	for _, p := range cfg.Profiles {
		add(p.Block)
		add(p.Address)
	}
	for _, m := range cfg.Modules {
		add(m.Call)
		add(m.Address)
	}
	for _, t := range cfg.Tracks {
		add(t.Address) // --replace reads everyone again
	}
	if all {
		for _, e := range cfg.Enriches {
			add(e.Address)
		}
		for _, x := range cfg.Exports {
			add(x.Address)
		}
	}
	return out
}

// stateAddresses lists the addresses in the state of the configuration in
// dir (or --state); people only once the word typed starts with person.,
// since a state may hold hundreds of thousands. Only a state that can be
// read without connecting anywhere is read (completion runs on every key
// press): a state in a database completes nothing.
func stateAddresses(f *Factory, cmd *cobra.Command, dir, toComplete string) []string {
	g := *f
	g.Dir = dir
	var src *stateSource
	var err error
	if fl := cmd.Flag("state"); fl != nil && fl.Value.String() != "" {
		path := fl.Value.String()
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		src, err = fileSource(&g, path)
	} else {
		cfg, diags := loadConfigNoLists(&g, arguments.Vars{})
		if cfg == nil || diags.HasErrors() {
			return nil
		}
		src, err = openSource(&g, cfg)
	}
	if err != nil {
		return nil
	}
	defer src.close()
	if !backend.Offline(src.backend) || backend.KnownAbsent(src.backend) {
		return nil
	}
	b, err := backend.OpenBase(src.backend)
	if err != nil {
		return nil
	}
	defer b.Close()
	// People only when the word starts like one (their IDs are read from
	// the store a page at a time, not the whole state).
	var out []string
	for a, err := range views.StateAddresses(b, strings.HasPrefix(toComplete, state.PersonAddressPrefix), []string{toComplete}) {
		if err != nil {
			return nil
		}
		out = append(out, a.Address)
	}
	return out
}

// filterPrefix keeps the candidates that start with prefix, sorted.
func filterPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// completeConfigAddresses completes --target (all) or --replace (searches
// and profiles).
func completeConfigAddresses(f *Factory, all bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return filterPrefix(configAddresses(f, completionDir(f, cmd), all), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeStateAddresses completes the ADDRESS arguments of state show and
// state rm; show takes one.
func completeStateAddresses(f *Factory, max int) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cands := stateAddresses(f, cmd, completionDir(f, cmd), toComplete)
		taken := map[string]bool{}
		for _, a := range args {
			taken[a] = true
		}
		var out []string
		for _, c := range filterPrefix(cands, toComplete) {
			if !taken[c] {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerAddressCompletion adds the completion of --target and --replace
// to a command that has them.
func registerAddressCompletion(f *Factory, cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("target", completeConfigAddresses(f, true))
	_ = cmd.RegisterFlagCompletionFunc("replace", completeConfigAddresses(f, false))
}

// workspaceNames lists the workspaces of the configuration in dir, read
// quietly; none for a backend that would have to connect somewhere (as
// stateAddresses).
func workspaceNames(f *Factory, dir string) []string {
	g := *f
	g.Dir = dir
	cfg, diags := loadConfig(&g, arguments.Vars{})
	if cfg == nil || diags.HasErrors() {
		return nil
	}
	src, err := openBackend(&g, cfg)
	if err != nil {
		return nil
	}
	defer src.close()
	if !backend.Offline(src.backend) {
		return nil
	}
	set, ok := backend.WorkspacesOf(src.backend)
	if !ok {
		return nil
	}
	list, err := set.Workspaces()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(list))
	for _, ws := range list {
		names = append(names, ws.Name)
	}
	return names
}

// completeWorkspaces completes the NAME of workspace select and delete
// (max arguments), and the value of --workspace (max 0).
func completeWorkspaces(f *Factory, max int) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return filterPrefix(workspaceNames(f, completionDir(f, cmd)), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
