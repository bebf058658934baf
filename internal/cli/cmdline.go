package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/spf13/cobra"
)

// Cobra's own messages for a wrong command line ("accepts 1 arg(s),
// received 0", "unknown flag: --x") say what is wrong but not what was
// expected or where to look. These helpers turn them into one message with
// the usage line and a pointer to --help.

// usageError is a mistake in how cmd was called: the problem, the command's
// usage line and where to read more.
func usageError(cmd *cobra.Command, problem string) error {
	//lint:ignore ST1005 printed whole to the user as sentences, not wrapped.
	return fmt.Errorf("%s\n\nUsage: %s\nRun '%s --help' for the flags and examples.", problem, cmd.UseLine(), cmd.CommandPath())
}

// flagError is the FlagErrorFunc of every command.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
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

// friendlyArgs wraps the argument check of cmd and all its subcommands so
// that a wrong number of arguments names what the command expects.
func friendlyArgs(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		friendlyArgs(sub)
	}
	check := cmd.Args
	if check == nil {
		return
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			if c.HasSubCommands() && strings.HasPrefix(err.Error(), "unknown command ") {
				return unknownCommandHint(c, err)
			}
			return usageError(c, argProblem(c, args, err))
		}
		return nil
	}
}

var (
	reExact   = regexp.MustCompile(`^accepts (\d+) arg\(s\), received \d+$`)
	reAtLeast = regexp.MustCompile(`^requires at least (\d+) arg\(s\), only received \d+$`)
	reAtMost  = regexp.MustCompile(`^accepts at most (\d+) arg\(s\), received \d+$`)
	reRange   = regexp.MustCompile(`^accepts between (\d+) and (\d+) arg\(s\), received \d+$`)
)

// argProblem rephrases cobra's argument error err for cmd called with args.
func argProblem(cmd *cobra.Command, args []string, err error) string {
	msg := err.Error()
	want := ""
	switch {
	case reExact.MatchString(msg):
		want = "exactly " + arguments(reExact.FindStringSubmatch(msg)[1])
	case reAtLeast.MatchString(msg):
		want = "at least " + arguments(reAtLeast.FindStringSubmatch(msg)[1])
	case reAtMost.MatchString(msg):
		want = "at most " + arguments(reAtMost.FindStringSubmatch(msg)[1])
	case reRange.MatchString(msg):
		m := reRange.FindStringSubmatch(msg)
		want = "between " + m[1] + " and " + m[2] + " arguments"
	case strings.HasPrefix(msg, "unknown command ") && !cmd.HasSubCommands():
		// cobra.NoArgs words an extra argument as an unknown command.
		want = "no arguments"
	case strings.HasPrefix(msg, "invalid argument ") && len(cmd.ValidArgs) > 0:
		valid := append([]string(nil), cmd.ValidArgs...)
		sort.Strings(valid)
		return fmt.Sprintf("%s: %q is not one of %s", cmd.CommandPath(), args[0], strings.Join(valid, ", "))
	default:
		return msg
	}
	spec := argSpec(cmd)
	if spec != "" {
		want += " (" + spec + ")"
	}
	return fmt.Sprintf("%s takes %s, got %s", cmd.CommandPath(), want, gotArgs(args))
}

// arguments is "1 argument" or "n arguments" for a decimal n.
func arguments(n string) string {
	if i, _ := strconv.Atoi(n); i == 1 {
		return "1 argument"
	}
	return n + " arguments"
}

// argSpec is the argument part of cmd's Use line: "ADDRESS...", "[PLANFILE]".
func argSpec(cmd *cobra.Command) string {
	_, spec, _ := strings.Cut(cmd.Use, " ")
	spec = strings.TrimSpace(strings.ReplaceAll(spec, "[flags]", ""))
	return spec
}

// gotArgs describes the arguments given: none, or each quoted.
func gotArgs(args []string) string {
	if len(args) == 0 {
		return "none"
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// unknownCommandHint adds to cobra's "unknown command" error of cmd (the
// command whose subcommand was not found) where the commands are listed.
func unknownCommandHint(cmd *cobra.Command, err error) error {
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
