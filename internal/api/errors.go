package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// ErrorKind says what went wrong with a call, in terms the rest of leadsync
// can act on (retry, stop, tell the user what to fix).
type ErrorKind int

const (
	// KindInvalid is HTTP 400: the service rejected the request.
	KindInvalid ErrorKind = iota + 1
	// KindForbidden is HTTP 401/403: missing, wrong or disabled key.
	KindForbidden
	// KindRateLimited is HTTP 429: too many calls per second (or quota).
	KindRateLimited
	// KindServer is HTTP 5xx: a problem on the service's side.
	KindServer
	// KindNetwork is a failure to reach the service or a connection that
	// broke (refused, reset, DNS, TLS).
	KindNetwork
	// KindTimeout is a call that did not complete within the per-call timeout.
	KindTimeout
	// KindDecode is an answer that is not the expected JSON (an HTML error
	// page, truncated JSON, a wrong shape).
	KindDecode
	// KindCanceled is a call abandoned because its context was canceled
	// (an interrupt).
	KindCanceled
	// KindUnexpected is any other HTTP status (404, 405, a redirect, ...),
	// usually a wrong base URL.
	KindUnexpected
	// KindConfig is a call the client cannot make as configured (no base URL
	// for the generation, an option the generation lacks) or a request that
	// is incomplete; nothing was sent.
	KindConfig
	// KindNotSent is a call that was not sent (or not retried) because its
	// send gate closed while it waited: the run is stopping. See
	// WithSendGate.
	KindNotSent
	// KindMismatch is an answer about another person than the one asked
	// for (another pageName or networkId): never merged into the person
	// asked for. The call may have been charged.
	KindMismatch
	// KindNotFound is a profile read or enrichment answered 404 with the
	// service's JSON error form (an object with a message): no member has
	// the page name asked for. The spec lists no 404 (an unknown member is
	// probably a 400, KindInvalid); a 404 that is a web page, or on any
	// other operation, stays KindUnexpected (a wrong base URL).
	KindNotFound
)

func (k ErrorKind) String() string {
	switch k {
	case KindInvalid:
		return "invalid request"
	case KindForbidden:
		return "forbidden"
	case KindRateLimited:
		return "rate limited"
	case KindServer:
		return "server error"
	case KindNetwork:
		return "network error"
	case KindTimeout:
		return "timeout"
	case KindDecode:
		return "undecodable answer"
	case KindCanceled:
		return "canceled"
	case KindUnexpected:
		return "unexpected answer"
	case KindConfig:
		return "not possible as configured"
	case KindNotSent:
		return "not sent"
	case KindMismatch:
		return "answer for another person"
	case KindNotFound:
		return "no such member"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is the error of every failed call of a Client. It never contains the
// API key: messages that echo it are redacted before they are stored.
type Error struct {
	// Op is the operation: "fields", "search", "page", "enrich", "billing".
	Op string
	// Gen is the generation the call was made in (0 when not applicable).
	Gen  Generation
	Kind ErrorKind
	// Status is the HTTP status; 0 when no answer arrived.
	Status int
	// Message is the service's message (trimmed, at most a few hundred
	// characters) or a description of the failure.
	Message string
	// RetryAfter is the service's Retry-After, when it sent one.
	RetryAfter time.Duration
	// Attempts is how many times the call was tried.
	Attempts int
	// Err is the underlying error (network, decoding), if any.
	Err error
	// Page is the page name a profile read or enrichment asked for (the
	// pageName, or the last segment of the profileUrl); "" for the other
	// operations.
	Page string

	// jsonError is true when the error answer was a JSON object with a
	// message (the service's error form), not a web page or text.
	jsonError bool
	// sent is true when the request may have reached the service.
	sent bool
	// timeout is the per-call timeout, for the hint.
	timeout time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Gen == Gen2 {
		b.WriteString(" (generation 2)")
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.pageRefused() && !strings.Contains(e.Message, e.Page) {
		// The service's message need not name the page: the error must.
		fmt.Fprintf(&b, " (page name %q)", e.Page)
	}
	if e.Err != nil && (e.Message == "" || !strings.Contains(e.Message, e.Err.Error())) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// MaybeCharged reports whether the call may have been processed (and, for
// enrich, a credit spent) although no result arrived: the request may have
// reached the service and the outcome is unknown — a timeout or broken
// connection after sending, a 5xx, an answer that could not be decoded.
// A 400, 403 or 429, a refused connection and an error before sending are
// certainly not charged.
func (e *Error) MaybeCharged() bool {
	switch e.Kind {
	case KindServer, KindDecode, KindMismatch:
		return true
	case KindNetwork, KindTimeout, KindCanceled, KindNotSent:
		return e.sent
	}
	return false
}

// OutcomeUnknown reports whether the call may have been processed and
// charged although no usable answer came back: the request was sent and
// the answer was lost (timeout, broken connection) or unusable (a 200 that
// could not be decoded or is about someone else). A 5xx is the service
// saying the call failed: nothing was charged for it, as for 4xx.
func (e *Error) OutcomeUnknown() bool { return e.MaybeCharged() && e.Kind != KindServer }

// QuotaExhausted reports whether the error says the key's monthly request
// quota (or its enrich credits) is used up: a 429 or 403 whose message
// speaks of the quota, or a 429 whose Retry-After is longer than any rate
// limit asks for. No call of the key can succeed before the next invoicing
// period, so a run stops at once rather than try every call again.
func (e *Error) QuotaExhausted() bool {
	msg := strings.ToLower(e.Message)
	switch e.Kind {
	case KindRateLimited:
		return strings.Contains(msg, "quota") || e.RetryAfter > maxRetryAfter
	case KindForbidden:
		return strings.Contains(msg, "quota")
	}
	return false
}

// Permanent reports whether the error cannot go away by retrying the same
// call soon: an address that does not resolve (no such host), a used-up
// quota.
func (e *Error) Permanent() bool {
	if e.QuotaExhausted() {
		return true
	}
	if e.Kind != KindNetwork || e.Err == nil {
		return false
	}
	var dns *net.DNSError
	return errors.As(e.Err, &dns) && dns.IsNotFound
}

// Sent reports whether the request may have reached the service.
func (e *Error) Sent() bool { return e.sent }

// pageRefused reports whether the error is the service refusing the page
// name of a profile read or enrichment: a 400 (how the service most
// probably answers for an unknown member) or a 404 in its JSON error form.
func (e *Error) pageRefused() bool {
	return e.Page != "" && (e.Op == OpPage || e.Op == OpEnrich) && (e.Kind == KindInvalid || e.Kind == KindNotFound)
}

// MemberUnknown reports whether err is the service refusing the page name
// of a profile read or enrichment as one no member has (a 400, or a 404 in
// the service's JSON error form): for a person state knew, they left the
// network or changed their page name.
func MemberUnknown(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.pageRefused()
}

// pageHint is the hint of pageRefused: about the page name, which is what
// the user can fix, not about the search parameters or the base URL.
func (e *Error) pageHint() string {
	if e.Op == OpEnrich {
		return fmt.Sprintf("the service knows no member with the page name %q: the person may have changed their page name or left the network; a new run of the search that found them shows whether they are still there", e.Page)
	}
	h := fmt.Sprintf("the service knows no member with the page name %q: check page_name or profile_url of the profile block for a typing error (case does not matter)", e.Page)
	if e.Kind == KindNotFound {
		h += "; if every profile read fails like this, check api.base_url / api.base_url_v2"
	}
	return h
}

// Hint says what the user can do about the error.
func (e *Error) Hint() string {
	if e.pageRefused() {
		return e.pageHint()
	}
	switch e.Kind {
	case KindInvalid:
		return "the service rejected the request; check the search parameters and values (leadsync fields lists the accepted ones)"
	case KindForbidden:
		// The service answers 403 for a used-up balance as well as for a
		// bad key; telling someone with no credits left to check the key
		// sends them the wrong way.
		msg := strings.ToLower(e.Message)
		switch {
		case strings.Contains(msg, "credit"):
			return "the enrich credits are used up; top up the credit balance, then run apply again (results already fetched are kept)"
		case strings.Contains(msg, "quota"):
			return "the monthly request quota is used up; wait for the next invoicing period (leadsync usage shows the date) or raise the quota, then run apply again (results already fetched are kept)"
		}
		return "check the API key (LEADSYNC_API_KEY or api.api_key), that it is enabled for this generation, and that the credits and monthly quota are not used up (leadsync usage)"
	case KindRateLimited:
		if e.QuotaExhausted() {
			return "the monthly request quota is used up; wait for the next invoicing period (leadsync usage shows the date) or raise the quota, then run apply again (results already fetched are kept)"
		}
		if e.RetryAfter > 0 {
			return fmt.Sprintf("the service asked to wait %s; another program may be using the same key, or the monthly quota is used up (leadsync usage)", e.RetryAfter.Round(time.Second))
		}
		return "another program may be using the same key, or the monthly quota is used up (leadsync usage); lower api.rate_limit or try again later"
	case KindServer:
		return "the service had a problem; try again later (results already fetched are kept)"
	case KindNetwork:
		if e.Permanent() {
			return "the service's host name does not resolve; check api.base_url / api.base_url_v2 for a typing error, and the network's name service"
		}
		return "check the network connection and api.base_url / api.base_url_v2"
	case KindTimeout:
		if e.timeout > 0 {
			return fmt.Sprintf("the service did not answer within %s; raise api.timeout or try again later", e.timeout)
		}
		return "the service did not answer in time; raise api.timeout or try again later"
	case KindDecode:
		return "the answer was not the service's JSON; check api.base_url (a proxy or web page may be answering) and try again"
	case KindCanceled:
		return "the call was interrupted"
	case KindUnexpected:
		return "check api.base_url / api.base_url_v2: the address does not look like the lead service"
	case KindConfig:
		return "check the api block of the configuration"
	case KindNotSent:
		return "run apply again to make it"
	case KindMismatch:
		return "the service answered about someone else; nothing was recorded for the person asked for; run apply again later, and report it to the service operator if it repeats"
	case KindNotFound:
		return "the service knows no such member; if every call fails like this, check api.base_url / api.base_url_v2"
	}
	return ""
}

// kindFor maps a non-2xx answer of operation op to a kind: by its status,
// and a 404 of a profile read or enrichment in the service's JSON error
// form to KindNotFound (see there).
func kindFor(op string, status int, jsonError bool) ErrorKind {
	if status == 404 && jsonError && (op == OpPage || op == OpEnrich) {
		return KindNotFound
	}
	return kindForStatus(status)
}

// kindForStatus maps a non-2xx HTTP status to a kind.
func kindForStatus(status int) ErrorKind {
	switch {
	case status == 400:
		return KindInvalid
	case status == 401 || status == 403:
		return KindForbidden
	case status == 429:
		return KindRateLimited
	case status >= 500:
		return KindServer
	}
	return KindUnexpected
}

// notSent reports whether a transport error certainly happened before any
// byte of the request reached the service: a refused connection, a failed
// dial, DNS lookup or TLS handshake. Only such errors make a retry of enrich
// safe; anything else may have reached the service.
func notSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	// Errors of the TLS handshake come before the request is written.
	if strings.Contains(err.Error(), "tls: ") && strings.Contains(err.Error(), "handshake") {
		return true
	}
	return false
}

// isTimeout reports whether err is a timeout of the call's own deadline.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// redactor removes a secret (the API key) from text, errors and logs: it
// stands as textfmt.Redacted.
type redactor string

func (r redactor) text(s string) string { return textfmt.Redact(s, string(r)) }

// redactedError wraps an error whose text might contain the key.
type redactedError struct {
	err error
	r   redactor
}

func (e *redactedError) Error() string { return e.r.text(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }

func (r redactor) err(err error) error {
	if err == nil || r == "" || r.text(err.Error()) == err.Error() {
		return err
	}
	return &redactedError{err: err, r: r}
}
