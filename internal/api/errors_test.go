package api

import (
	"errors"
	"testing"
)

// A short API key is redacted where it stands alone, and the rest of the
// message is left readable (a one-letter key blanked out every "a").
func TestShortKeyRedaction(t *testing.T) {
	r := redactor("a")
	err := r.err(errors.New("invalid api key a: contact your administrator"))
	if got, want := err.Error(), "invalid api key [redacted]: contact your administrator"; got != want {
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
