package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStartHookRunsForEveryAttemptAfterThePacer(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(`{"Remaining requests this month": 5, "Invoicing start date": "2024-01-01"}`))
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Key: "k", RateLimit: 1000, Pacer: NewPacer(1000, 1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	hooks := 0
	if _, err := c.Billing(WithStartHook(context.Background(), func() error { hooks++; return nil })); err != nil {
		t.Fatal(err)
	}
	if hooks != 2 {
		t.Errorf("hook ran %d times for 2 attempts", hooks)
	}
}
