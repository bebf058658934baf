package api

import (
	"errors"
	"strings"
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

// A key the HTTP client cannot send is refused before any call, saying
// where the bad character is and never the key.
func TestKeyWithControlCharacter(t *testing.T) {
	for _, key := range []string{"SECRETPART1\x7f", "SECRET\x00PART", "SECRET\x1bPART"} {
		_, err := New(Options{Key: key, BaseURL: "http://127.0.0.1:1"})
		if err == nil || !strings.Contains(err.Error(), "control character") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("New with key %q: %v", key, err)
		}
	}
	if _, err := New(Options{Key: "key\twith\ttabs", BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Errorf("a tab is allowed in a header value: %v", err)
	}
}
