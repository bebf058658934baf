package run

import (
	"errors"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

func TestServiceOf(t *testing.T) {
	for _, tc := range []struct {
		api     config.API
		account string
		want    string
	}{
		{config.API{Sandbox: true}, "abc", "sandbox"},
		{config.API{BaseURL: "https://api.example.com/v1"}, "abc", "api.example.com abc"},
		{config.API{BaseURL: "http://127.0.0.1:43567"}, "abc", "127.0.0.1 abc"},
		{config.API{BaseURL: "https://api.example.com"}, "", "api.example.com"},
	} {
		if got := ServiceOf(&config.Config{API: tc.api}, tc.account); got != tc.want {
			t.Errorf("ServiceOf(%+v, %q) = %q, want %q", tc.api, tc.account, got, tc.want)
		}
	}
}

// A state filled from one service refuses another; a state of an older
// leadsync (no service) takes the first one it meets, saying so once.
func TestCheckAndRecordService(t *testing.T) {
	for _, tc := range []struct {
		recorded, now string
		refused       bool
	}{
		{"", "sandbox", false},
		{"sandbox", "sandbox", false},
		{"sandbox", "api.example.com abc", true},
		{"api.example.com abc", "sandbox", true},
		{"api.example.com abc", "other.example.com abc", true},
		{"api.example.com abc", "api.example.com def", false}, // a new key of the account
		{"api.example.com abc", "api.example.com", false},     // no key known
	} {
		st := state.New()
		st.Service = tc.recorded
		err := checkService(st, tc.now)
		var sc *ServiceChangedError
		if got := errors.As(err, &sc); got != tc.refused {
			t.Errorf("%q then %q: refused %v (%v), want %v", tc.recorded, tc.now, got, err, tc.refused)
		}
		if tc.refused && (!strings.Contains(err.Error(), "new workspace") || !strings.Contains(err.Error(), "clear this state")) {
			t.Errorf("the refusal does not say how to go on: %v", err)
		}
	}

	legacy := state.New()
	legacy.Searches["search.cto"] = &state.Search{}
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	recordService(legacy, "sandbox", warn)
	recordService(legacy, "sandbox", warn)
	if legacy.Service != "sandbox" || len(warned) != 1 || !strings.Contains(warned[0], "recorded no service") {
		t.Errorf("legacy state: service %q, warnings %q", legacy.Service, warned)
	}
	fresh := state.New()
	recordService(fresh, "api.example.com abc", warn)
	if fresh.Service != "api.example.com abc" || len(warned) != 1 {
		t.Errorf("fresh state: service %q, warnings %q", fresh.Service, warned)
	}
	kept := state.New()
	kept.Service = "api.example.com abc"
	recordService(kept, "api.example.com", warn)
	if kept.Service != "api.example.com abc" {
		t.Errorf("an unknown key dropped the account: %q", kept.Service)
	}
}

// A workspace filled by another configuration is refused unless taken
// over; one of an older leadsync (none recorded) is not.
func TestCheckConfiguration(t *testing.T) {
	for _, tc := range []struct {
		recorded, now string
		takeOver      bool
		refused       bool
	}{
		{"", "dach", false, false},
		{"dach", "dach", false, false},
		{"dach", "emea", false, true},
		{"dach", "emea", true, false},
	} {
		st := state.New()
		st.Configuration = tc.recorded
		err := checkConfiguration(st, tc.now, tc.takeOver)
		var ce *ConfigurationChangedError
		if got := errors.As(err, &ce); got != tc.refused {
			t.Errorf("%q then %q (take over %v): refused %v, want %v", tc.recorded, tc.now, tc.takeOver, got, tc.refused)
		}
		if tc.refused && !strings.Contains(err.Error(), "--take-over") {
			t.Errorf("the refusal does not name --take-over: %v", err)
		}
	}
}
