package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A closed send gate stops calls that wait for the rate limit, and leaves
// alone the one already sent.
func TestSendGateStopsWaitingCallsOnly(t *testing.T) {
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		w.Write([]byte(`{"Remaining requests this month": 5, "Invoicing start date": "2024-01-01"}`))
	}))
	defer srv.Close()
	// One call per hour: every call after the first waits at the pacer.
	c, err := New(Options{BaseURL: srv.URL, Key: "k", Pacer: NewPacer(1.0/3600, 4, nil)})
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	ctx := WithSendGate(context.Background(), gate)
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() { _, err := c.Billing(ctx); errs <- err }()
	}
	<-arrived // the first call is sent
	close(gate)
	// The two waiting calls give up at once, unsent.
	for i := 0; i < 2; i++ {
		err := <-errs
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindNotSent || ae.MaybeCharged() {
			t.Fatalf("waiting call: err = %v, want an uncharged KindNotSent", err)
		}
	}
	// The sent one finishes with its answer.
	close(release)
	if err := <-errs; err != nil {
		t.Fatalf("sent call: %v", err)
	}
	if n := len(arrived); n != 0 {
		t.Errorf("%d more calls reached the server, want only the first", n)
	}
}

// A call that the start hook refuses, or that the closed gate stops, says
// "not sent" once, then why.
func TestNotSentSaysItOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a refused call reached the server")
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithStartHook(context.Background(), func() error { return errors.New("cannot write the journal: disk full") })
	_, err = c.Enrich(ctx, PageRequest{PageName: "Max_Mustermann"})
	if got, want := err.Error(), "enrich: not sent: cannot write the journal: disk full"; got != want {
		t.Errorf("refused by the start hook:\n got %q\nwant %q", got, want)
	}
	gate := make(chan struct{})
	close(gate)
	_, err = c.Billing(WithSendGate(context.Background(), gate))
	if got, want := err.Error(), "billing: not sent: the run is stopping"; got != want {
		t.Errorf("stopped by the gate:\n got %q\nwant %q", got, want)
	}
}
