package api

import (
	"errors"
	"testing"
)

// A short API key is redacted everywhere, also inside longer words: the
// key never appears in a message.
func TestShortKeyRedaction(t *testing.T) {
	r := redactor("abc123")
	err := r.err(errors.New("invalid request for key=abc123 (id abc123xyz)"))
	if got, want := err.Error(), "invalid request for key=[redacted] (id [redacted]xyz)"; got != want {
		t.Errorf("redacted %q, want %q", got, want)
	}
	long := redactor("sk_live_0123456789")
	err = long.err(errors.New("bad key=sk_live_0123456789x"))
	if got, want := err.Error(), "bad key=[redacted]x"; got != want {
		t.Errorf("redacted %q, want %q", got, want)
	}
	plain := errors.New("a message without the key")
	if long.err(plain) != plain {
		t.Error("an error without the key was wrapped")
	}
}
