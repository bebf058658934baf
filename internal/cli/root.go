package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/version"
	"github.com/leadsync/leadsync/internal/views"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitError   = 1
	ExitChanges = 2 // plan --detailed-exitcode: the plan has changes
)

// ExitError carries an exit code out of a command whose output was already
// written (diagnostics, a summary): Main prints nothing more for it.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// silentExit returns an error that makes Main exit with code without
// printing anything further.
func silentExit(code int) error { return &exitError{code: code} }

// Main runs leadsync with the process's arguments and world and returns the
// exit code.
func Main() int {
	return Run(context.Background(), NewSystemFactory(), os.Args[1:])
}

// Run runs leadsync with args in the world of f and returns the exit code.
func Run(ctx context.Context, f *Factory, args []string) (code int) {
	defer func() {
		// A panic outside the command itself (executeC catches those).
		if p := recover(); p != nil {
			views.Error(f.IO.ErrOut, crashed(f, p))
			code = ExitError
		}
	}()
	// Count what reaches stdout, so that a --json command that fails
	// before printing its document still prints one (see jsonfail.go).
	stdout := &countingWriter{w: f.IO.Out}
	io := *f.IO
	io.Out = stdout
	run := *f
	run.IO = &io
	run.failures = &failureLog{}
	f = &run

	root := NewRootCmd(f)
	args = singleDashLongFlags(root, args)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmd, err := executeC(ctx, f, root, args)
	if err == nil {
		return ExitOK
	}
	code = ExitError
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else {
		if cmd != nil && strings.HasPrefix(err.Error(), "unknown command ") && !strings.Contains(err.Error(), "--help") {
			err = unknownCommandHint(cmd, err)
		}
		views.Error(f.IO.ErrOut, err)
	}
	if code == ExitError && stdout.n == 0 && jsonRequested(cmd, args) {
		writeJSONFailure(stdout, cmd, err, f.failures, f.now())
	}
	if code == ExitError && stdout.n == 0 && markdownRequested(cmd, args) {
		// As with --json: a comment saying what failed, never nothing.
		writeMarkdownFailure(stdout, cmd, err, f.failures)
	}
	return code
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	var chdir string
	var noColor bool
	root := &cobra.Command{
		Use:   "leadsync",
		Short: "Lead lists as code: plan, apply and export searches and enrichments",
		Long: `leadsync keeps lead-list definitions written in HCL (*.leads.hcl) in sync
with the lead service, the way Terraform does for infrastructure.

  leadsync validate   check the configuration, offline
  leadsync plan       show which calls apply will make and what they cost
  leadsync apply      make those calls at the rate limit and write the spreadsheets

Flags are shown with two dashes; Terraform's one dash works too:
leadsync -chdir=DIR plan -out=leads.plan is leadsync --chdir=DIR plan --out=leads.plan.`,
		Example: `  leadsync validate
  leadsync plan --out leads.plan && leadsync apply leads.plan
  leadsync --chdir examples/quickstart apply --auto-approve
  leadsync --workspace uk plan`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if noColor || f.Getenv("NO_COLOR") != "" {
				f.IO.NoColor = true
			}
			if chdir != "" {
				dir := chdir
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(f.Dir, dir)
				}
				fi, err := os.Stat(dir)
				switch {
				case errors.Is(err, fs.ErrNotExist):
					return fmt.Errorf("--chdir %s: no such directory; give the directory that holds the *.leads.hcl files", chdir)
				case err != nil:
					return fmt.Errorf("--chdir %s: %v", chdir, unwrapPathError(err))
				case !fi.IsDir():
					return fmt.Errorf("--chdir %s: is a file, not a directory; give the directory that holds the *.leads.hcl files", chdir)
				}
				f.Dir = dir
			}
			return nil
		},
	}
	// --version prints what "leadsync version" prints.
	root.Version = version.String()
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetHelpCommand(newHelpCmd())
	root.PersistentFlags().StringVar(&chdir, "chdir", "", "switch to `DIR` before doing anything")
	root.PersistentFlags().BoolVar(&noColor, "no-color", false, "disable colour (also NO_COLOR)")
	root.CompletionOptions.HiddenDefaultCmd = true
	for _, add := range commands {
		cmd := add(f)
		if !noWorkspace[cmd.Name()] {
			// Global in effect (leadsync --workspace uk plan works too),
			// but listed only where a workspace means something.
			cmd.PersistentFlags().StringVar(&f.Workspace, "workspace", "", "use the state of workspace `NAME` (also LEADSYNC_WORKSPACE; default: the one leadsync workspace select chose, else default)")
			_ = cmd.RegisterFlagCompletionFunc("workspace", completeWorkspaces(f, 0))
		}
		root.AddCommand(cmd)
	}
	root.SetFlagErrorFunc(flagError)
	groupArgs(root)
	return root
}

// noWorkspace are the commands that read no configuration and no state:
// they take no --workspace.
var noWorkspace = map[string]bool{"version": true, "sandbox": true, "completion": true}

// commands are the subcommands, each defined in its own file and added here.
var commands = []func(*Factory) *cobra.Command{
	newVersionCmd,
	newValidateCmd,
	newFmtCmd,
	newCompletionCmd,
	newSandboxCmd,
	newExportCmd,
	newShowCmd, newStateCmd, newForceUnlockCmd, newForgetCmd, newWorkspaceCmd,
	newFieldsCmd, newUsageCmd, newOutputCmd,
	newConsoleCmd,
	newApplyCmd,
	newPlanCmd,
}
