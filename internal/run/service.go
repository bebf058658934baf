package run

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// ServiceOf names the service cfg's api block points at, as a state
// records it (state.State.Service): "sandbox", or the base URL's host
// (without its port: a sandbox on loopback gets another port each time)
// and the account, api.AccountID of the key (never the key), when known.
func ServiceOf(cfg *config.Config, account string) string {
	if cfg == nil || cfg.API.Sandbox {
		return "sandbox"
	}
	host := cfg.API.BaseURL
	if u, err := url.Parse(cfg.API.BaseURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	if account == "" {
		return host
	}
	return host + " " + account
}

// ServiceChangedError is a plan or apply refused because the state was
// filled from another service than the one the configuration points at.
type ServiceChangedError struct {
	Recorded, Now string
}

func (e *ServiceChangedError) Error() string {
	return fmt.Sprintf("this state was filled from %s, and the configuration now points at %s. Its searches, people and e-mails are that service's, and a plan would keep them as this one's (\"No changes\"). "+
		"Go on in a new workspace, which starts empty (leadsync workspace new NAME, then --workspace NAME), or clear this state first (the local backend's is the folder .leadsync; leadsync state push --force of an empty state replaces a workspace's)",
		describeService(e.Recorded), describeService(e.Now))
}

func describeService(s string) string {
	if s == "sandbox" {
		return "the sandbox"
	}
	if host, account, ok := strings.Cut(s, " "); ok {
		return fmt.Sprintf("%s (account %s)", host, account)
	}
	return s
}

// checkService refuses a state filled from another service than now: the
// sandbox and a host, or two hosts. Another key on the same host is not
// refused: the account's hash is one of its key, and keys are replaced
// (a new key of the same account, a wrong key the service refuses). A
// state that recorded none (written before this was recorded) is taken
// as now's.
func checkService(st *state.State, now string) error {
	if st.Service == "" || st.Service == now {
		return nil
	}
	recHost, _, _ := strings.Cut(st.Service, " ")
	nowHost, _, _ := strings.Cut(now, " ")
	if recHost == nowHost {
		return nil
	}
	return &ServiceChangedError{Recorded: st.Service, Now: now}
}

// recordService notes now as the state's service before an apply writes
// it; a state that held results without a service takes it, said once
// through warn.
func recordService(st *state.State, now string, warn func(string)) {
	if st.Service == now {
		return
	}
	if st.Service == "" && !st.IsEmpty() && warn != nil {
		warn(fmt.Sprintf("This state recorded no service (it was written by an older leadsync); from now on it belongs to %s, and a plan against another service is refused.", describeService(now)))
	}
	if host, account, _ := strings.Cut(now, " "); account == "" && strings.HasPrefix(st.Service, host+" ") {
		return // the key is not known now: keep the account recorded
	}
	st.SetService(now)
}

// ConfigurationChangedError is a plan or apply refused because the
// workspace is filled by another configuration (state.State.Configuration)
// and was not taken over (--take-over).
type ConfigurationChangedError struct {
	Recorded, Now string
}

func (e *ConfigurationChangedError) Error() string {
	return fmt.Sprintf("this workspace is filled by the configuration %q, and this one is %q: a plan would forget what %q searched and read, and mix the two. "+
		"Use a workspace of its own (leadsync workspace new NAME, then --workspace NAME), or, if this configuration replaces the other (renamed, moved), take the workspace over with --take-over",
		e.Recorded, e.Now, e.Recorded)
}

// checkConfiguration refuses a state filled by another configuration
// than now, unless takeOver. A state that recorded none is taken as now's;
// a configuration of no known identity ("") is refused nothing.
func checkConfiguration(st *state.State, now string, takeOver bool) error {
	if st.Configuration == "" || now == "" || st.Configuration == now || takeOver {
		return nil
	}
	return &ConfigurationChangedError{Recorded: st.Configuration, Now: now}
}

// noteTakeOver records the configuration of opts in st, and says so
// through opts.Warn when it takes the workspace over from another.
func noteTakeOver(st *state.State, opts ApplyOptions) {
	now := opts.Config.Identity()
	if now == "" {
		return // nothing known to record
	}
	if st.Configuration != "" && st.Configuration != now && opts.Warn != nil {
		opts.Warn(fmt.Sprintf("The workspace is now filled by the configuration %q (it was %q).", now, st.Configuration))
	}
	st.SetConfiguration(now)
}

// takeOver writes a take-over of an apply with nothing to run: the
// header alone, under the apply's lock.
func takeOver(d Deps, opts ApplyOptions, st *state.State) error {
	if !opts.TakeOver || st.Configuration == "" || st.Configuration == opts.Config.Identity() {
		return nil
	}
	noteTakeOver(st, opts)
	return d.Backend.Commit(st)
}
