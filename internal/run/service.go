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
