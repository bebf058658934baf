package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// operate runs operation op of call n on a request body that passed the
// rules. Input problems are 400, an unknown member too (the spec's codes
// are 400, 403, 429 and 500; see docs/sandbox.md); only a 200 spends quota
// (first generation) and credits (enrich).
func (s *Server) operate(op Op, body []byte, now time.Time, n uint64) reply {
	switch op {
	case OpFields:
		return s.spend(op, 0, func(int) reply { return jsonReply(http.StatusOK, Fields()) })
	case OpBilling:
		return s.spend(op, 0, func(int) reply {
			s.mu.Lock()
			q := s.quota
			s.mu.Unlock()
			return jsonReply(http.StatusOK, api.Usage{RemainingRequests: q, InvoicingStartDate: InvoicingStartDate})
		})
	case OpSearch, OpSearchV2:
		params, rep, ok := decodeObject(body)
		if !ok {
			return rep
		}
		q, err := parseSearch(params, op == OpSearch)
		if err != nil {
			return errorReply(http.StatusBadRequest, "%s", err)
		}
		return s.spend(op, 0, func(int) reply { return jsonReply(http.StatusOK, s.search(q)) })
	case OpPage, OpPageV2, OpEnrich:
		params, rep, ok := decodeObject(body)
		if !ok {
			return rep
		}
		page, err := parsePage(params)
		if err != nil {
			return errorReply(http.StatusBadRequest, "%s", err)
		}
		m, ok := s.Member(page)
		if !ok {
			return errorReply(http.StatusBadRequest, "no member with pageName %q", page)
		}
		if op != OpEnrich {
			return s.spend(op, 0, func(int) reply { return jsonReply(http.StatusOK, m.profile(now, s.PrivatePositions())) })
		}
		return s.spend(op, s.cost, func(balance int) reply {
			s.mu.Lock()
			s.stats.Enriched[m.PageName]++
			s.mu.Unlock()
			return jsonReply(http.StatusOK, m.enriched(requestID(s.opts.Seed, n), balance))
		})
	}
	return errorReply(http.StatusNotFound, "unknown operation")
}

// spend takes one request of the monthly quota (first generation) and
// credits, or answers 403 when either is used up, then builds the answer
// with the remaining credit balance.
func (s *Server) spend(op Op, credits int, answer func(balance int) reply) reply {
	s.mu.Lock()
	switch {
	case op.Gen1() && s.quota <= 0:
		f := s.faults
		s.mu.Unlock()
		if f.QuotaAs429 {
			return quotaTooMany(f)
		}
		return errorReply(http.StatusForbidden, "monthly request quota exhausted")
	case credits > s.credits:
		bal := s.credits
		s.mu.Unlock()
		return errorReply(http.StatusForbidden, "not enough enrich credits: %d left, %d needed", bal, credits)
	}
	if op.Gen1() {
		s.quota--
		s.stats.RequestsSpent++
	}
	s.credits -= credits
	s.stats.CreditsSpent += credits
	bal := s.credits
	s.mu.Unlock()
	return answer(bal)
}

// decodeObject decodes a JSON object body into its members.
func decodeObject(body []byte) (map[string]json.RawMessage, reply, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errorReply(http.StatusBadRequest, "request body must be a JSON object"), false
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		msg := "request body is not a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, errorReply(http.StatusBadRequest, "%s", msg), false
	}
	if dec.More() {
		return nil, errorReply(http.StatusBadRequest, "request body has data after the JSON object"), false
	}
	return m, reply{}, true
}

// pageKey is the key of a page name: the network ignores its case
// (Max_Mustermann and max_mustermann are the same profile).
func pageKey(page string) string { return strings.ToLower(page) }

// parsePage reads pageName or profileUrl (exactly one) and returns the page
// name.
func parsePage(params map[string]json.RawMessage) (string, error) {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if k != "pageName" && k != "profileUrl" {
			return "", fmt.Errorf("unknown parameter %q: expected pageName or profileUrl", k)
		}
	}
	rawPage, hasPage := params["pageName"]
	rawURL, hasURL := params["profileUrl"]
	switch {
	case hasPage && hasURL:
		return "", fmt.Errorf("give exactly one of pageName and profileUrl, not both")
	case !hasPage && !hasURL:
		return "", fmt.Errorf("one of pageName or profileUrl is required")
	case hasPage:
		var p string
		if err := json.Unmarshal(rawPage, &p); err != nil {
			return "", fmt.Errorf("pageName must be a string")
		}
		if strings.TrimSpace(p) == "" {
			return "", fmt.Errorf("pageName must not be empty")
		}
		return p, nil
	}
	var raw string
	if err := json.Unmarshal(rawURL, &raw); err != nil {
		return "", fmt.Errorf("profileUrl must be a string")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("profileUrl must be an absolute http(s) URL, got %q", raw)
	}
	page := path.Base(strings.TrimRight(u.Path, "/"))
	if page == "" || page == "/" || page == "." {
		return "", fmt.Errorf("profileUrl %q does not end in a page name", raw)
	}
	return page, nil
}

// profile is the member's profile (spec 2.4) as of now. A private profile
// shows its name, avatar and address only, and its positions with
// privatePositions (Options.PrivatePositions): never its description.
func (m *Member) profile(now time.Time, privatePositions bool) person.Profile {
	p := person.Profile{
		FullName:             m.FullName(),
		CurrentPosition:      []person.Position{},
		WorkPositionTimeline: []person.TimelinePosition{},
		ProfileImg:           m.imageURL(256),
		NetworkURL:           m.ProfileURL(),
		Private:              m.Private,
		PremiumProfile:       m.Premium,
	}
	if m.Private {
		p.ProfileImg = imageURLPrefix + "default_256x256.png"
		if !privatePositions {
			return p
		}
	} else {
		p.Description = m.Description
	}
	for _, pos := range m.Positions {
		end := now
		var endDate *string
		if !pos.End.IsZero() {
			end = pos.End
			e := monthText(pos.End)
			endDate = &e
		}
		date := durationText(pos.Start, end) + ", since " + monthText(pos.Start)
		days := max(0, int(end.Sub(pos.Start)/(24*time.Hour)))
		if pos.End.IsZero() {
			p.CurrentPosition = append(p.CurrentPosition, person.Position{JobTitle: pos.Title, Company: pos.Company, Date: date})
		}
		p.WorkPositionTimeline = append(p.WorkPositionTimeline, person.TimelinePosition{
			JobTitle: pos.Title, Company: pos.Company, Date: date,
			StartDate: monthText(pos.Start), EndDate: endDate, DaysInPosition: days,
		})
	}
	return p
}

func monthText(t time.Time) string { return t.Format("Jan 2006") }

// durationText is "2 years 3 months", "1 year", "5 months" or "less than a month".
func durationText(from, to time.Time) string {
	months := (to.Year()-from.Year())*12 + int(to.Month()-from.Month())
	if to.Day() < from.Day() {
		months--
	}
	if months <= 0 {
		return "less than a month"
	}
	plural := textfmt.Plural
	y, mo := months/12, months%12
	switch {
	case y == 0:
		return plural(mo, "month")
	case mo == 0:
		return plural(y, "year")
	}
	return plural(y, "year") + " " + plural(mo, "month")
}

// enriched is the member's enrich answer (spec 2.5).
func (m *Member) enriched(id string, balance int) person.EnrichedProfile {
	return person.EnrichedProfile{
		ID: id, PageName: m.PageName, FirstName: m.FirstName, LastName: m.LastName,
		FullName: m.FullName(), Title: m.Title, Location: m.Location(),
		PreviousTitle: m.PreviousTitle, Company: m.Company, NetworkID: m.NetworkID,
		ProfileImgURL: m.imageURL(256), Email: m.Email, ValidationStatus: m.EmailStatus,
		CompanyDomain: m.CompanyDomain, CreditBalance: balance,
	}
}

// requestID is a UUID (version 4 form) fixed by seed and call number.
func requestID(seed int64, n uint64) string {
	a, b := mix(seed, n, saltRequestID), mix(seed, n, saltRequestID+100)
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x",
		a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}
