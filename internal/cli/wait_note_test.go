package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/leadsync/leadsync/internal/api/apitest"
)

// A billing read that is retried says what it waits for, on plan, apply
// and usage, instead of going silent until the last attempt. The waits
// pass on a fake clock (each about 1.7 s of real time before); the key is
// one of this test's own, as the client's pacer is shared by every client
// of a key in the process and keeps the clock of the first.
func TestBillingRetrySaysWhatItWaitsFor(t *testing.T) {
	const key = "lk-test-WAIT-N0TE-D0NT-LEAK"
	clock := apitest.NewAutoClock(apiTestNow)
	for _, args := range [][]string{{"plan"}, {"apply", "--auto-approve"}, {"usage"}} {
		t.Run(args[0], func(t *testing.T) {
			slept := clock.Slept()
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
			code, _, errOut := apiRunOn(t, clock, dir, []string{"LEADSYNC_API_KEY=" + key}, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if n.Load() < 2 {
				t.Fatalf("billing read %d times, want a retry", n.Load())
			}
			if !strings.Contains(errOut, "before calling the service again (retry after server error)") {
				t.Errorf("stderr does not say what the retry waits for:\n%s", errOut)
			}
			if clock.Slept() == slept {
				t.Errorf("the retry did not wait")
			}
		})
	}
}
