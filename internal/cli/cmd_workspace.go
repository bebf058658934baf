package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/views"
)

// workspaceSource opens the configuration's backend on the workspace in
// use, made or not, for the workspace commands.
func workspaceSource(f *Factory, sf *stateFlags) (*stateSource, backend.Workspaces, error) {
	src, err := openStateSourceWith(f, sf, openBackend)
	if err != nil {
		return nil, nil, err
	}
	set, ok := src.workspaces()
	if !ok {
		src.close()
		return nil, nil, fmt.Errorf("%s has no workspaces", src.describe(f))
	}
	return src, set, nil
}

func newWorkspaceCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workspace",
		Short: "List, create and delete workspaces: independent states of one configuration",
		Long: `A workspace is one independent state of the configuration: one configuration
can keep several (a DACH and a UK campaign). Commands use the workspace
--workspace names, else LEADSYNC_WORKSPACE, else the one leadsync
workspace select chose for this working copy (kept in .leadsync/workspace),
else "default".

On the local backend "default" is the state file (.leadsync/state.json) and
workspace NAME is the folder .leadsync/workspaces/NAME, with its own state
file, journal, backup and lock; on the pg backend each workspace is its own
state in the database.`,
		Example: `  leadsync workspace list
  leadsync workspace new uk
  leadsync --workspace uk apply
  leadsync workspace select uk && leadsync plan
  leadsync workspace show
  leadsync workspace delete uk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkspaceListCmd(f), newWorkspaceNewCmd(f), newWorkspaceSelectCmd(f), newWorkspaceShowCmd(f), newWorkspaceDeleteCmd(f))
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
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			list, err := set.Workspaces()
			if err != nil {
				return err
			}
			sortWorkspaces(list)
			w := newStateWriter(f.IO.Out)
			for _, ws := range list {
				mark := " "
				if ws.Name == src.workspaceName() {
					mark = "*"
				}
				switch {
				case ws.Err != nil:
					w.printf("%s %s  (cannot be read: %v)\n", mark, ws.Name, ws.Err)
				case ws.Exists && (ws.Serial > 0 || !ws.IsEmpty()):
					w.printf("%s %s  (%s, %s; serial %d)\n", mark, ws.Name, views.Plural(ws.Blocks, "record"), views.Plural(ws.People, "person"), ws.Serial)
				default:
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
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			if err := set.CreateWorkspace(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Created workspace %q. Use it with --workspace %s or LEADSYNC_WORKSPACE=%s.\n", args[0], args[0], args[0])
			return nil
		},
	}
	sf.vars.register(cmd)
	return cmd
}

func newWorkspaceSelectCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	var orCreate bool
	cmd := &cobra.Command{
		Use:   "select NAME",
		Short: "Choose the workspace this working copy uses",
		Long: `Select keeps NAME as the workspace of this working copy, in
.leadsync/workspace (as Terraform keeps its in .terraform/environment):
every later command uses it until another is selected. "default" selects
the default workspace again. The workspace must exist (leadsync workspace
new NAME makes one; --or-create makes it here when it does not).

--workspace and LEADSYNC_WORKSPACE still win over the selection, for the
command they are given to; select refuses while either is set, since the
selection would not be the workspace in use.`,
		Example: `  leadsync workspace select uk
  leadsync workspace select campaign-2027 --or-create
  leadsync workspace select default`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeWorkspaces(f, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if ws, by := f.workspaceAndSource(); by == "--workspace" || by == EnvWorkspace {
				return fmt.Errorf("%s chooses workspace %q and wins over a selection, so nothing was selected. Leave it out (unset %s) to select the workspace of this working copy", by, ws, EnvWorkspace)
			}
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			err = run.SelectWorkspace(f.Dir, name, set)
			if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) && orCreate {
				if err = set.CreateWorkspace(name); err != nil {
					return err
				}
				fmt.Fprintf(f.IO.Out, "Created workspace %q.\n", name)
				err = run.SelectWorkspace(f.Dir, name, set)
			}
			if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) {
				return fmt.Errorf("workspace %q does not exist, so nothing was selected; create it with\n  leadsync workspace new %s\nor select and create it at once with leadsync workspace select %s --or-create", name, name, name)
			}
			if err != nil {
				return err
			}
			if name == state.DefaultWorkspace {
				fmt.Fprintf(f.IO.Out, "Selected the default workspace.\n")
				return nil
			}
			fmt.Fprintf(f.IO.Out, "Selected workspace %q: commands in this working copy use it (kept in %s).\n", name, run.SelectionPath)
			return nil
		},
	}
	cmd.Flags().BoolVar(&orCreate, "or-create", false, "create the workspace when it does not exist")
	sf.vars.register(cmd)
	return cmd
}

func newWorkspaceShowCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the name of the workspace in use",
		Long: `Show prints the name of the workspace commands use here: the one --workspace
names, else LEADSYNC_WORKSPACE, else the one leadsync workspace select
chose, else "default". Only the name, for scripts.`,
		Example: `  leadsync workspace show
  echo "planning in $(leadsync workspace show)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := f.workspace()
			if name == "" {
				name = state.DefaultWorkspace
			}
			fmt.Fprintln(f.IO.Out, name)
			return nil
		},
	}
	return cmd
}

func newWorkspaceDeleteCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workspace (one that holds state only with --force)",
		Long: `Delete removes a workspace and everything it holds (on the local backend, its
folder with its state, backup and journal). A workspace that holds
searches, profiles or people is refused unless --force: what it holds was
paid for. A workspace in use by a run (locked) is refused, as are
"default" and the workspace this command runs in (--workspace or
LEADSYNC_WORKSPACE).`,
		Example: `  leadsync workspace delete uk
  leadsync workspace delete old-campaign --force`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeWorkspaces(f, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			if name := args[0]; name != state.DefaultWorkspace && name == src.workspaceName() {
				_, by := f.workspaceAndSource()
				return fmt.Errorf("workspace %q is the one in use (%s names it); nothing was deleted. Delete it from another one: leadsync --workspace default workspace delete %s", name, by, name)
			}
			if err := set.DeleteWorkspace(args[0], force); err != nil {
				if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) {
					return noWorkspaceToDelete(set, ne)
				}
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
		Short: "Copy a local state file into the workspace in use",
		Long: `Push copies a local state file (state_path, or --from) into the workspace in
use, keeping its lineage: a team starts from what one person already
fetched (pg backend), or a workspace starts from a copy of another state
(local backend; without --from, the default workspace's state file). The
workspace must exist (made with leadsync workspace new, or "default"); one
that holds state is refused unless --force, which replaces what it holds
(on the local backend the workspace's backup keeps it until its next
write). Push takes the workspace's lock.`,
		Example: `  leadsync state push
  leadsync --workspace uk state push --from uk/.leadsync/state.json
  leadsync state pull > copy.json && leadsync --workspace test state push --from copy.json
  leadsync state push --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openStateSource(f, &sf)
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
			from, err := fileSource(f, path)
			if err != nil {
				return err
			}
			if backend.KnownAbsent(from.backend) {
				return fmt.Errorf("no local state at %s to push", stateRelPath(f, path))
			}
			to, ok := backend.PusherOf(src.backend)
			if !ok {
				return fmt.Errorf("%s takes no pushed state", src.describe(f))
			}
			inUse, isFile := backend.FilePath(src.backend)
			if isFile && sameFile(path, inUse) {
				return fmt.Errorf("%s is the state file of workspace %q, the one in use: nothing to push. Name another state file with --from PATH, or push into another workspace with --workspace NAME",
					stateRelPath(f, path), src.workspaceName())
			}
			s, err := run.StatePush(stateDeps(f, src), from.backend, to, force)
			if ne := (*backend.NotEmptyError)(nil); errors.As(err, &ne) && isFile {
				ne.Where = src.workspaceDescription(f) // relative to the working folder
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Pushed %s (%s, %s) into %s.\n", stateRelPath(f, path),
				views.Plural(len(s.Searches)+len(s.Profiles), "search and profile record"), views.Plural(len(s.People), "person"), src.workspaceDescription(f))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a workspace that already holds state")
	cmd.Flags().StringVar(&from, "from", "", "push the state file at `PATH` instead of state_path")
	cmd.Flags().DurationVar(&f.LockTimeout, "lock-timeout", 0, lockTimeoutHelp)
	sf.vars.register(cmd)
	return cmd
}

// sameFile reports whether paths a and b are one file (b may not exist).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func newStatePullCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Print the workspace's state as the local state file's JSON",
		Long: `Pull prints the state of the workspace in use as the JSON of a local state
file, with the calls an interrupted apply recorded folded in (it holds
personal data: write it only where it belongs). leadsync state push --from
reads it back.`,
		Example: `  leadsync state pull > backup.json
  leadsync --workspace uk state pull | jq '.searches | keys'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openStateSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			s, err := src.backend.Load()
			if err != nil {
				return err
			}
			return statefile.Encode(f.IO.Out, s)
		},
	}
	sf.vars.register(cmd)
	return cmd
}

// noWorkspaceToDelete says that the workspace delete names does not exist
// (there is nothing to make: the hint of other commands, to create it, is
// no answer here) and lists those that do.
func noWorkspaceToDelete(set backend.Workspaces, ne *backend.NoWorkspaceError) error {
	in := ""
	if ne.In != "" {
		in = " in " + ne.In
	}
	list, err := set.Workspaces()
	if err != nil {
		return fmt.Errorf("workspace %q does not exist%s; nothing was deleted", ne.Workspace, in)
	}
	sortWorkspaces(list)
	names := make([]string, 0, len(list))
	for _, ws := range list {
		names = append(names, ws.Name)
	}
	return fmt.Errorf("workspace %q does not exist%s; nothing was deleted. The workspaces are: %s", ne.Workspace, in, strings.Join(names, ", "))
}

// sortWorkspaces puts the default workspace first, then the others by
// name, on either backend.
func sortWorkspaces(list []backend.WorkspaceInfo) {
	sort.SliceStable(list, func(i, j int) bool {
		if (list[i].Name == state.DefaultWorkspace) != (list[j].Name == state.DefaultWorkspace) {
			return list[i].Name == state.DefaultWorkspace
		}
		return list[i].Name < list[j].Name
	})
}
