package arguments

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// ViewType is the form a command prints its result in.
type ViewType int

const (
	// ViewHuman is text for a person, the default.
	ViewHuman ViewType = iota
	// ViewJSON is one JSON object (apply: one per line), with --json.
	ViewJSON
	// ViewMarkdown is a pull-request comment, with --markdown.
	ViewMarkdown
)

func (v ViewType) String() string {
	switch v {
	case ViewJSON:
		return "json"
	case ViewMarkdown:
		return "markdown"
	}
	return "human"
}

// view is the ViewType --json chooses.
func view(asJSON bool) ViewType {
	if asJSON {
		return ViewJSON
	}
	return ViewHuman
}

// UsageError is a command line of the wrong shape: a wrong number of
// arguments, or an argument that is not one of a fixed set. cli prints it
// with the command's usage line and where to read more.
type UsageError struct {
	Problem string
}

func (e *UsageError) Error() string { return e.Problem }

// Vars are the variable-value flags of every command that loads the
// configuration, in the order given (later wins). Their values are
// checked by config, which reports a wrong one as a diagnostic (so that
// validate --json lists it with the others).
type Vars struct {
	Vars  []string // --var NAME=VALUE
	Files []string // --var-file FILE, relative to --chdir
}

// Register declares --var and --var-file on fs.
func (v *Vars) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&v.Vars, "var", nil, "set a variable: `NAME=VALUE` (repeatable; wins over every other source)")
	fs.StringArrayVar(&v.Files, "var-file", nil, "read variable values from `FILE` (repeatable; relative to --chdir)")
}

// State locates the state of a command that reads or edits it: the
// configuration's (loaded with Vars) or the local state file at Path.
type State struct {
	Vars Vars
	// Path is --state: a local state file, used alone; "" for the
	// configuration's state (its backend, the workspace in use).
	Path string
}

// Register declares --var, --var-file and --state on fs.
func (s *State) Register(fs *pflag.FlagSet) {
	s.Vars.Register(fs)
	fs.StringVar(&s.Path, "state", "", "use the state file at `PATH` instead of the configuration's state_path")
}

// registerLockTimeout declares --lock-timeout on fs.
func registerLockTimeout(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "lock-timeout", 0, "wait up to `DURATION` (like 5m) for another run to release the state's lock")
}

// checkLockTimeout refuses a negative --lock-timeout.
func checkLockTimeout(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--lock-timeout %s: want a duration of 0 or more, like 5m (0: do not wait)", d)
	}
	return nil
}

// The number of positional arguments. Each names the command as the user
// typed it and its arguments as its usage line does (spec), and says what
// was given.

// noArgs refuses any positional argument.
func noArgs(cmd string, args []string) error {
	if len(args) > 0 {
		return countError(cmd, "no arguments", "", args)
	}
	return nil
}

// exactlyOne returns the one positional argument.
func exactlyOne(cmd, spec string, args []string) (string, error) {
	if len(args) != 1 {
		return "", countError(cmd, "exactly 1 argument", spec, args)
	}
	return args[0], nil
}

// exactlyTwo returns the two positional arguments.
func exactlyTwo(cmd, spec string, args []string) (string, string, error) {
	if len(args) != 2 {
		return "", "", countError(cmd, "exactly 2 arguments", spec, args)
	}
	return args[0], args[1], nil
}

// atMostOne returns the positional argument, "" when there is none.
func atMostOne(cmd, spec string, args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		return args[0], nil
	}
	return "", countError(cmd, "at most 1 argument", spec, args)
}

// atLeastOne returns the positional arguments, of which there must be one.
func atLeastOne(cmd, spec string, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, countError(cmd, "at least 1 argument", spec, args)
	}
	return args, nil
}

// list is the positional arguments of a command that takes any number:
// nil when there are none.
func list(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return args
}

// countError says that cmd takes want (spec: the arguments as its usage
// line names them) and what it got.
func countError(cmd, want, spec string, args []string) error {
	if spec != "" {
		want += " (" + spec + ")"
	}
	got := "none"
	if len(args) > 0 {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = strconv.Quote(a)
		}
		got = strings.Join(q, " ")
	}
	return &UsageError{Problem: fmt.Sprintf("%s takes %s, got %s", cmd, want, got)}
}

// optionalInt is an int flag that knows whether it was given, for a flag
// whose absence means "the configuration's value" and whose every given
// value must be valid.
type optionalInt struct {
	n   int
	set bool
}

func (o *optionalInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.Itoa(o.n)
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	o.n, o.set = n, true
	return nil
}

func (o *optionalInt) Type() string { return "int" }
