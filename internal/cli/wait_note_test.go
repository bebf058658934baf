package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A billing read that is retried says what it waits for, on plan, apply
// and usage, instead of going silent until the last attempt.
func TestBillingRetrySaysWhatItWaitsFor(t *testing.T) {
	for _, args := range [][]string{{"plan"}, {"apply", "--auto-approve"}, {"usage"}} {
		t.Run(args[0], func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/billing" && n.Add(1) == 1 {
					w.WriteHeader(http.StatusInternalServerError)
					fmt.Fprint(w, `{"message":"internal server error"}`)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"Remaining requests this month": 1234567, "Invoicing start date": "2025-02-01"}`)
			}))
			defer srv.Close()
			dir := writeConfig(t, remoteConfig(srv.URL))
			code, _, errOut := apiRun(t, dir, []string{"LEADSYNC_API_KEY=" + apiTestKey}, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if n.Load() < 2 {
				t.Fatalf("billing read %d times, want a retry", n.Load())
			}
			if !strings.Contains(errOut, "before calling the service again (retry after server error)") {
				t.Errorf("stderr does not say what the retry waits for:\n%s", errOut)
			}
		})
	}
}
