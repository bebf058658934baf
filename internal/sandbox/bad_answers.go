package sandbox

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/leadsync/leadsync/internal/sandbox/knobs"
)

// BadAnswer is a kind of 200 answer that is not the service's answer to the
// call (knobs.BadAnswer, where the kinds are listed).
type BadAnswer = knobs.BadAnswer

// Kinds of bad answers (Faults.Bad).
const (
	BadNone        = knobs.BadNone
	BadEmpty       = knobs.BadEmpty
	BadNull        = knobs.BadNull
	BadEmptyObject = knobs.BadEmptyObject
	BadNullItem    = knobs.BadNullItem
	BadNoID        = knobs.BadNoID
	BadOtherPerson = knobs.BadOtherPerson
)

// FaultBad counts answers replaced by Faults.Bad.
const FaultBad Fault = 100

// saltBad keeps the draw of a bad answer independent of the other faults.
const saltBad = 1000

// badAnswer replaces the 200 answer rep of call n of op by the bad answer
// the faults ask for, if this call draws one.
func (s *Server) badAnswer(f Faults, op Op, n uint64, rep reply) reply {
	if f.Bad == BadNone || f.BadShare <= 0 || rep.status != http.StatusOK || unit(f.Seed, n, saltBad) >= f.BadShare {
		return rep
	}
	out := rep
	out.header = rep.header.Clone()
	switch f.Bad {
	case BadEmpty:
		out.body = nil
	case BadNull:
		out.body = []byte("null")
	case BadEmptyObject:
		out.body = []byte("{}")
	case BadNullItem:
		out.body = []byte("[null]")
	case BadNoID:
		out.body = withoutIDs(rep.body)
	case BadOtherPerson:
		if op == OpSearch || op == OpSearchV2 || op == OpBilling || op == OpFields {
			return rep
		}
		out.body = s.otherPerson(rep.body, n)
	}
	s.countFault(FaultBad)
	return out
}

// withoutIDs removes networkId and pageName from an object or from each
// object of a list.
func withoutIDs(body []byte) []byte {
	var list []map[string]any
	if json.Unmarshal(body, &list) == nil {
		for _, m := range list {
			delete(m, "networkId")
			delete(m, "pageName")
		}
		b, _ := json.Marshal(list)
		return b
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		delete(obj, "networkId")
		delete(obj, "pageName")
		b, _ := json.Marshal(obj)
		return b
	}
	return body
}

// otherPerson rewrites an answer about one member into the same answer
// about another one (the next member of the population after the one
// named), keeping every other field.
func (s *Server) otherPerson(body []byte, n uint64) []byte {
	var obj map[string]any
	members := s.population().members
	if json.Unmarshal(body, &obj) != nil || len(members) < 2 {
		return body
	}
	page, _ := obj["pageName"].(string)
	if u, ok := obj["networkUrl"].(string); ok && page == "" {
		page = pageOfURL(u)
	}
	other := members[int(n)%len(members)]
	if pageKey(other.PageName) == pageKey(page) {
		other = members[(int(n)+1)%len(members)]
	}
	if _, ok := obj["networkUrl"]; ok {
		obj["networkUrl"] = other.ProfileURL()
	}
	if _, ok := obj["pageName"]; ok {
		obj["pageName"] = other.PageName
		obj["networkId"] = other.NetworkID
		obj["email"] = other.Email
	}
	obj["fullName"] = other.FullName()
	b, _ := json.Marshal(obj)
	return b
}

// pageOfURL is the last path segment of a profile URL.
func pageOfURL(u string) string {
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == '/' {
			return u[i+1:]
		}
	}
	return u
}

// quotaTooMany is the 429 of a used-up monthly quota (Faults.QuotaAs429).
func quotaTooMany(f Faults) reply {
	rep := errorReply(http.StatusTooManyRequests, "monthly quota exhausted: no requests left until the next invoicing period")
	secs := f.QuotaRetryAfter
	if secs <= 0 {
		secs = 30 * 24 * 3600
	}
	rep.header.Set("Retry-After", strconv.Itoa(secs))
	return rep
}
