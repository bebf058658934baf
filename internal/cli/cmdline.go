package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/spf13/cobra"
)

// Cobra's own messages for a wrong command line ("unknown flag: --x",
// "unknown command") say what is wrong but not what was expected or where
// to look. These helpers turn them, and the parsers' *arguments.UsageError,
// into one message with the usage line and a pointer to --help.

// usageError is a mistake in how cmd was called: the problem, the command's
// usage line and where to read more.
func usageError(cmd *cobra.Command, problem string) error {
	//lint:ignore ST1005 printed whole to the user as sentences, not wrapped.
	return fmt.Errorf("%s\n\nUsage: %s\nRun '%s --help' for the flags and examples.", problem, cmd.UseLine(), cmd.CommandPath())
}

// flagError is the FlagErrorFunc of every command.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if _, arg, ok := strings.Cut(msg, "unknown shorthand flag: "); ok {
		// A single-dash word that is no long flag (singleDashLongFlags
		// spelled the others with two): name it as the long flag meant.
		if _, word, ok := strings.Cut(arg, " in -"); ok {
			if name, _, _ := strings.Cut(word, "="); len(name) > 1 {
				msg = "unknown flag: --" + name
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := nearestFlag(cmd, name); s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
	}
	return usageError(cmd, msg)
}

// flagNameRE finds the long flag names in a flag usage listing.
var flagNameRE = regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)

// nearestFlag is the flag of cmd (its own or inherited, not hidden) closest
// to name, "" when none is within two edits.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3
	usages := cmd.Flags().FlagUsages() + cmd.InheritedFlags().FlagUsages()
	for _, line := range strings.Split(usages, "\n") {
		// The flag's own name is the first --name of its line.
		m := flagNameRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if d := levenshtein.Distance(name, m[1], nil); d < bestD {
			best, bestD = m[1], d
		}
	}
	return best
}

// groupArgs makes a command that only groups others (state, workspace)
// name where its subcommands are listed when the word after it is none
// of them. The commands that run take their arguments through their
// parsers (parseArgs).
func groupArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		groupArgs(sub)
	}
	if !cmd.HasSubCommands() || cmd.Args == nil {
		return
	}
	check := cmd.Args
	cmd.Args = func(c *cobra.Command, args []string) error {
		err := check(c, args)
		if err != nil && strings.HasPrefix(err.Error(), "unknown command ") {
			return unknownCommandHint(c, err)
		}
		return err
	}
}

// unknownCommandHint adds to cobra's "unknown command" error of cmd (the
// command whose subcommand was not found) where the commands are listed.
func unknownCommandHint(cmd *cobra.Command, err error) error {
	if cmd == cmd.Root() && strings.HasPrefix(err.Error(), `unknown command "import" `) {
		return errImportCommand
	}
	//lint:ignore ST1005 printed whole to the user as sentences, not wrapped.
	return fmt.Errorf("%s\nRun '%s --help' for the list of commands.", strings.TrimRight(err.Error(), "\n"), cmd.CommandPath())
}

// unwrapPathError drops the operation and path an *fs.PathError repeats.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errImportCommand answers a Terraform user's leadsync import: people
// another tool exported come in through an import block, which plan shows
// and apply records, as Terraform's import blocks do.
//
//lint:ignore ST1005 printed whole to the user as sentences, not wrapped.
var errImportCommand = errors.New(`leadsync has no import command: people another tool exported (a CSV or XLSX file) come in with an import block, which plan shows and apply records, at no credit:

  import "evaboot" {
    file    = "legacy/evaboot-2026-10.csv"
    columns = { profile_url = "LinkedIn URL", email = "Email" }
  }

See docs/configuration.md, "import: people another tool exported". To move a record within the state, use leadsync state mv.`)
