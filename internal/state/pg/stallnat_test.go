package pg

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// A kept probe connection that dies silently, as a flow a NAT dropped,
// does not cut a healthy step: its question fails at its deadline, and
// the probe asks once more on a new connection. The probe reaches the
// server through a proxy that stops forwarding the flows open when the
// watch is armed; new flows pass.
func TestASilentlyDeadProbeAsksOnANewConnection(t *testing.T) {
	cs := testConnStr(t)
	ctx := context.Background()
	work, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer work.Close(ctx)
	px := newFreezingProxy(t, cs)
	p := &probe{connStr: px.connStr, pid: work.PgConn().PID(), limit: 2 * time.Second}
	defer p.close()
	_, err = p.ask()
	mustNoErr(t, err, "the first question, which opens the kept connection")
	px.freeze()
	a, err := p.ask()
	if err != nil {
		t.Fatalf("the kept connection went silent: %v, want the answer of a new connection", err)
	}
	if a.state != "idle" {
		t.Fatalf("the idle work's session is %q, want idle", a.state)
	}
}

// freezingProxy forwards TCP flows to a PostgreSQL server until freeze,
// after which the flows open then forward nothing; new flows pass.
type freezingProxy struct {
	connStr string
	target  string

	mu      sync.Mutex
	flows   []*flow
	stopped chan struct{} // closed with the test: frozen copies end
}

// flow is one proxied connection, frozen or not.
type flow struct {
	mu     sync.Mutex
	frozen bool
}

func (f *flow) isFrozen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.frozen
}

// newFreezingProxy listens on a local port and returns cs through it.
func newFreezingProxy(t *testing.T, cs string) *freezingProxy {
	t.Helper()
	u, err := url.Parse(cs)
	mustNoErr(t, err, "read the connection string")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	mustNoErr(t, err, "listen")
	px := &freezingProxy{target: u.Host, stopped: make(chan struct{})}
	u.Host = ln.Addr().String()
	px.connStr = u.String()
	var conns []net.Conn
	var connsMu sync.Mutex
	t.Cleanup(func() {
		close(px.stopped)
		ln.Close()
		connsMu.Lock()
		defer connsMu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", px.target)
			if err != nil {
				in.Close()
				continue
			}
			connsMu.Lock()
			conns = append(conns, in, out)
			connsMu.Unlock()
			f := px.add()
			go px.forward(f, out, in)
			go px.forward(f, in, out)
		}
	}()
	return px
}

func (px *freezingProxy) add() *flow {
	px.mu.Lock()
	defer px.mu.Unlock()
	f := &flow{}
	px.flows = append(px.flows, f)
	return f
}

// freeze stops forwarding on every flow open now.
func (px *freezingProxy) freeze() {
	px.mu.Lock()
	defer px.mu.Unlock()
	for _, f := range px.flows {
		f.mu.Lock()
		f.frozen = true
		f.mu.Unlock()
	}
}

// forward copies src to dst until an end, or holds what it read once
// the flow is frozen, until the test ends.
func (px *freezingProxy) forward(f *flow, dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if f.isFrozen() {
			<-px.stopped
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
