package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Terraform spells its long flags with one dash (terraform plan
// -out=tfplan, terraform -chdir=DIR apply -auto-approve); cobra reads
// -out=tfplan as the shorthands o, u, t, ... A Terraform user types them
// first, so the command line is normalised once, before cobra parses it:
// an argument "-name" or "-name=value" whose name is a long flag of the
// command being called (its own or inherited) becomes "--name...". What
// stays as it is: "--name", a shorthand ("-h"), a name that is no long
// flag (cobra then says it is unknown), the value of a flag given as the
// next argument ("--var -x=1" keeps its value), and everything after "--".
// Help and the docs show one style: two dashes.

// singleDashLongFlags returns args with every single-dash long flag of
// the command it calls spelled with two dashes.
func singleDashLongFlags(root *cobra.Command, args []string) []string {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return args // completion: the shell's own words
	}
	out := make([]string, 0, len(args))
	cmd := root
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if sub := subcommandNamed(cmd, a); sub != nil {
				cmd = sub
			}
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		fl := longFlag(cmd, name)
		if fl != nil && !strings.HasPrefix(a, "--") && len(name) > 1 {
			a = "-" + a
		}
		out = append(out, a)
		if fl != nil && strings.HasPrefix(a, "--") && !hasValue && fl.NoOptDefVal == "" && i+1 < len(args) {
			// The flag's value is the next argument, whatever it looks like.
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// subcommandNamed is the subcommand of cmd called name (or one of its
// aliases), nil when there is none.
func subcommandNamed(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// longFlag is the flag of cmd, its own or inherited from a parent, whose
// long name is name; nil when there is none.
func longFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if name == "" {
		return nil
	}
	// --help and --version are added as cobra executes: add them now.
	cmd.InitDefaultHelpFlag()
	cmd.Root().InitDefaultVersionFlag()
	if fl := cmd.Flags().Lookup(name); fl != nil {
		return fl
	}
	for c := cmd; c != nil; c = c.Parent() {
		if fl := c.PersistentFlags().Lookup(name); fl != nil {
			return fl
		}
	}
	return nil
}
