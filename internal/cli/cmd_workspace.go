package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/views"
)

// pgSource opens the configuration's pg backend; other backends are
// refused with what to do.
func pgSource(f *Factory, sf *stateFlags, what string) (*stateSource, error) {
	if sf.path != "" {
		return nil, fmt.Errorf("%s works on the pg backend; --state names a local file", what)
	}
	src, err := openStateSource(f, sf)
	if err != nil {
		return nil, err
	}
	if src.pg == nil {
		return nil, fmt.Errorf("%s needs a shared backend: add leadsync { backend \"pg\" { conn_str = ... } } to the configuration (the local state file has no workspaces)", what)
	}
	return src, nil
}

func newWorkspaceCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workspace",
		Short: "List, create and delete the workspaces of the pg backend",
		Long: `A workspace is one independent state in the pg backend: one configuration can
keep several (a DACH and a UK campaign) in one database. Commands use the
workspace --workspace or LEADSYNC_WORKSPACE names, "default" otherwise.`,
		Example: `  leadsync workspace list
  leadsync workspace new uk
  leadsync --workspace uk apply
  leadsync workspace delete uk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkspaceListCmd(f), newWorkspaceNewCmd(f), newWorkspaceDeleteCmd(f))
	return cmd
}

func newWorkspaceListCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the workspaces, marking the one in use with *",
		Example: `  leadsync workspace list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := pgSource(f, &sf, "workspace list")
			if err != nil {
				return err
			}
			defer src.close()
			list, err := src.pg.Workspaces()
			if err != nil {
				return err
			}
			w := newStateWriter(f.IO.Out)
			for _, ws := range list {
				mark := " "
				if ws.Name == src.pg.Workspace() {
					mark = "*"
				}
				if ws.Exists {
					w.printf("%s %s  (%s, %s; serial %d)\n", mark, ws.Name, views.Plural(ws.Blocks, "record"), views.Plural(ws.People, "person"), ws.Serial)
				} else {
					w.printf("%s %s  (empty)\n", mark, ws.Name)
				}
			}
			return w.flush()
		},
	}
	sf.vars.register(cmd)
	return cmd
}

func newWorkspaceNewCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:     "new NAME",
		Short:   "Create an empty workspace",
		Example: `  leadsync workspace new uk && leadsync --workspace uk plan`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := pgSource(f, &sf, "workspace new")
			if err != nil {
				return err
			}
			defer src.close()
			if err := src.pg.CreateWorkspace(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Created workspace %q. Use it with --workspace %s or LEADSYNC_WORKSPACE=%s.\n", args[0], args[0], args[0])
			return nil
		},
	}
	sf.vars.register(cmd)
	return cmd
}

func newWorkspaceDeleteCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workspace (one that holds state only with --force)",
		Long: `Delete removes a workspace and everything it holds. A workspace that holds
searches, profiles or people is refused unless --force: what it holds was
paid for. A workspace in use by a run (locked) is refused.`,
		Example: `  leadsync workspace delete uk
  leadsync workspace delete old-campaign --force`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := pgSource(f, &sf, "workspace delete")
			if err != nil {
				return err
			}
			defer src.close()
			if err := src.pg.DeleteWorkspace(args[0], force); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Deleted workspace %q.\n", args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "delete a workspace that holds state, with everything in it")
	sf.vars.register(cmd)
	return cmd
}

func newStatePushCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	var force bool
	var from string
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Copy the local state file into the pg backend",
		Long: `Push copies the local state file (state_path, or --from) into the configured
pg backend's workspace, keeping its lineage, so that a team starts from
what one person already fetched. A workspace that holds state is refused
unless --force (what it holds is replaced). Push takes the workspace's
lock.`,
		Example: `  leadsync state push
  leadsync --workspace uk state push --from uk/.leadsync/state.json
  leadsync state push --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := pgSource(f, &sf, "state push")
			if err != nil {
				return err
			}
			defer src.close()
			path := from
			if path == "" {
				cfg, diags := loadConfig(f, &sf.vars)
				if diags.HasErrors() {
					return silentExit(ExitError)
				}
				path = stateFilePath(cfg)
			} else if !filepath.IsAbs(path) {
				path = filepath.Join(f.Dir, path)
			}
			local := newStateStore(f, path)
			if !local.Exists() {
				return fmt.Errorf("no local state at %s to push", stateRelPath(f, path))
			}
			s, err := run.StatePush(stateDeps(f, src), local.AsBackend(), src.pg, force)
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Pushed %s (%s, %s) into %s.\n", stateRelPath(f, path),
				views.Plural(len(s.Searches)+len(s.Profiles), "search and profile record"), views.Plural(len(s.People), "person"), src.pg.Describe())
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a workspace that already holds state")
	cmd.Flags().StringVar(&from, "from", "", "push the state file at `PATH` instead of state_path")
	cmd.Flags().DurationVar(&f.LockTimeout, "lock-timeout", 0, lockTimeoutHelp)
	sf.vars.register(cmd)
	return cmd
}

func newStatePullCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Print the pg backend's state as the local state file's JSON",
		Long: `Pull prints the state of the pg backend's workspace as the JSON of a local
state file (it holds personal data: write it only where it belongs).`,
		Example: `  leadsync state pull > backup.json
  leadsync --workspace uk state pull | jq '.searches | keys'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := pgSource(f, &sf, "state pull")
			if err != nil {
				return err
			}
			defer src.close()
			s, err := src.backend.Load()
			if err != nil {
				return err
			}
			return state.Encode(f.IO.Out, s)
		},
	}
	sf.vars.register(cmd)
	return cmd
}
