package views

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
)

func TestCounter(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c := NewCounter(func() time.Time { return now })
	c.Start(10)
	if rate, _, ok := c.Rate(); rate != 0 || ok {
		t.Errorf("before any time: rate %v, ok %v; want 0 and unknown", rate, ok)
	}
	a := engine.Call{Seq: 1, Address: "search.a"}
	b := engine.Call{Seq: 2, Address: "search.b"}
	e := engine.Call{Seq: 3, Address: "enrich.e", Kind: kind.Enrich}
	c.CallStart(b)
	c.CallStart(a)
	now = now.Add(4 * time.Second)
	c.CallEnd(a, 0)
	c.CallStart(e)
	c.CallEnd(e, 2)

	if c.Started != 3 || c.Done != 2 || c.Credits != 2 {
		t.Errorf("started %d, done %d, credits %d; want 3, 2, 2", c.Started, c.Done, c.Credits)
	}
	if fl := c.InFlight(); len(fl) != 1 || fl[0].Address != "search.b" {
		t.Errorf("in flight: %+v", fl)
	}
	// 3 calls started in 4 s: 0.75/s; the 7 left take 9.33 s.
	rate, left, ok := c.Rate()
	if rate != 0.75 || !ok || left.Round(10*time.Millisecond) != 9330*time.Millisecond {
		t.Errorf("rate %v, left %v, ok %v; want 0.75, 9.33s, true", rate, left, ok)
	}
	// More calls started than planned: the time left is unknown.
	for i := 4; i <= 11; i++ {
		c.CallStart(engine.Call{Seq: i})
	}
	if _, _, ok := c.Rate(); ok {
		t.Error("time left known with more calls started than planned")
	}
}
