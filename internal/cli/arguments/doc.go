// Package arguments turns the command line of each leadsync command into
// the struct the command runs with, as terraform's internal/command/arguments
// does. Each command has one file here, named after it, with three things:
//
//   - XxxFlags, its flags as given, and their Register, which declares them
//     (names, defaults, help) on a pflag.FlagSet: cobra's, for help,
//     completion and parsing;
//   - Xxx, what the command receives: the flags and positional arguments
//     checked together, with the form of the output chosen (View);
//   - ParseXxx, the pure function from the one to the other. Every command
//     line that cannot run is an error here that says what is wrong and how
//     to write it, before anything is read, opened or called. A command
//     line of the wrong shape (the number of arguments, an argument that is
//     not one of a fixed set) is a *UsageError, which cli shows with the
//     command's usage line.
//
// The shared groups of flags are here too: Vars (--var, --var-file), State
// (those and --state) and --lock-timeout. The global flags (--chdir,
// --no-color, --workspace) are the root command's, in cli.
//
// It does no I/O: no files, no environment, no clock, no streams, no calls
// (TestNoIO checks its imports). It imports pflag, the standard library's
// pure packages, and internal/sandbox/knobs (a leaf) for the sandbox's
// defaults and its faults with their parser; never the sandbox itself,
// cobra, cli, views, run or a backend.
package arguments
