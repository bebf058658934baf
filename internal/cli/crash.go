package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/leadsync/leadsync/internal/version"
	"github.com/leadsync/leadsync/internal/views"
)

// crashError is a panic of a command turned into its failure: a bug of
// leadsync, never a Go stack trace on the user's screen. The stack went
// to a file of its own (log, "" when it could not be written), named in
// the message for the report. The command's deferred work (the state's
// lock released, files closed) ran as the panic unwound; every answer
// read before it was written to the state, and a call whose answer it
// lost is in apply's summary as of unknown outcome.
type crashError struct {
	value string
	log   string
}

func (e *crashError) Error() string {
	where := "this message (the details could not be written)"
	if e.log != "" {
		where = e.log
	}
	return fmt.Sprintf("leadsync stopped on an internal error: %v\n\n"+
		"This is a bug in leadsync, not in your configuration. Every answer read\n"+
		"before it is in the state; a call whose answer it lost is of unknown\n"+
		"outcome (it may have been charged). Run the command again to go on.\n"+
		"Please report it with the details in %s.", e.value, where)
}

// executeC runs the command args name, as root.ExecuteContextC does,
// with a panic returned as a crashError of that command, so that Run
// reports it as any failure, --json included. A panic of a goroutine of
// the command's own comes back as the command's error (a
// *recovered.Panic): it is a crashError too.
func executeC(ctx context.Context, f *Factory, root *cobra.Command, args []string) (cmd *cobra.Command, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = crashed(f, p)
			if cmd, _, _ = root.Find(args); cmd == root {
				cmd = nil
			}
		}
	}()
	cmd, err = root.ExecuteContextC(ctx)
	if p, ok := errors.AsType[*recovered.Panic](err); ok {
		err = crashed(f, p)
	}
	return cmd, err
}

// crashed writes the stack of the goroutine that panicked with p
// (crashLog) and returns the crashError naming it. Call it from the
// deferred function that recovered p, or with the *recovered.Panic a
// goroutine of the command recovered (its stack is that goroutine's).
func crashed(f *Factory, p any) error {
	value, log := crashReport(f, p)
	return &crashError{value: value, log: log}
}

// crashReport writes the stack of the goroutine that panicked with p to
// a crash log (crashed says from where to call it) and returns the
// panic's value without the environment's secrets, and the log's path
// ("" when it could not be written).
func crashReport(f *Factory, p any) (value, log string) {
	stack := debug.Stack()
	if rp, ok := p.(*recovered.Panic); ok {
		p, stack = rp.Value, rp.Stack
	}
	value = textfmt.Redact(fmt.Sprint(p), envSecrets(f)...)
	log, err := crashLog(f, value, stack)
	if err != nil {
		log = ""
	}
	return value, log
}

// envSecrets are the secrets the environment gives a command, to be cut
// out of a panic's value: the API key, the PostgreSQL connection string
// and its password. A Getenv that panics itself gives none.
func envSecrets(f *Factory) (secrets []string) {
	defer func() { _ = recover() }()
	secrets = append(secrets, strings.TrimSpace(f.Getenv("LEADSYNC_API_KEY")))
	conn := f.Getenv("LEADSYNC_PG_CONN_STR")
	secrets = append(secrets, conn)
	if u, err := url.Parse(conn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw)
		}
	}
	return secrets
}

// crashLog writes the panic's value and stack to a new file in the
// user's cache directory, under leadsync (os.TempDir without one), and
// returns its path.
func crashLog(f *Factory, p any, stack []byte) (string, error) {
	dir := os.TempDir()
	if f.CacheDir != "" {
		dir = filepath.Join(f.CacheDir, "leadsync")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	file, err := os.CreateTemp(dir, "leadsync-crash-*.log")
	if err != nil {
		return "", err
	}
	werr := views.CrashLog(file, version.String(), f.now(), p, stack)
	if err := file.Close(); werr == nil {
		werr = err
	}
	return file.Name(), werr
}
