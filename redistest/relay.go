package redistest

import (
	"net"
	"sync"
)

// relay forwards the TCP connections made to a loopback listener to a
// target address, byte for byte, and can hold what it forwards: the
// replication link of [Replicated] runs through one.
type relay struct {
	ln     net.Listener
	target string

	mu     sync.Mutex // held while forwarding a chunk
	cond   *sync.Cond // signalled when held or closed changes
	held   bool
	closed bool

	connsMu sync.Mutex
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

func newRelay(target string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	r.cond = sync.NewCond(&r.mu)
	r.wg.Go(r.serve)
	return r, nil
}

// addr returns the address to dial instead of the target.
func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) serve() {
	for {
		in, err := r.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", r.target)
		if err != nil {
			in.Close()
			continue
		}
		if !r.track(in, out) {
			return
		}
		r.wg.Go(func() { r.pipe(out, in) })
		r.wg.Go(func() { r.pipe(in, out) })
	}
}

// track remembers the connections, or closes them and reports false when
// the relay is closed.
func (r *relay) track(conns ...net.Conn) bool {
	r.connsMu.Lock()
	defer r.connsMu.Unlock()
	if r.conns == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		r.conns[c] = struct{}{}
	}
	return true
}

// pipe copies src to dst, waiting while the relay is held. When either
// side ends, both are closed.
func (r *relay) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			r.mu.Lock()
			for r.held && !r.closed {
				r.cond.Wait()
			}
			var werr error
			if !r.closed {
				_, werr = dst.Write(buf[:n])
			}
			closed := r.closed
			r.mu.Unlock()
			if werr != nil || closed {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hold stops forwarding: when it returns, nothing more reaches either
// side until resume. What arrives meanwhile waits in the relay and in the
// kernel's buffers.
func (r *relay) hold() {
	r.mu.Lock()
	r.held = true
	r.mu.Unlock()
}

// resume forwards again, starting with what waited.
func (r *relay) resume() {
	r.mu.Lock()
	r.held = false
	r.cond.Broadcast()
	r.mu.Unlock()
}

// close cuts every connection, dropping what waited, stops listening, and
// waits for its goroutines.
func (r *relay) close() {
	r.ln.Close()
	r.connsMu.Lock()
	for c := range r.conns {
		c.Close() // ends a Write blocked under mu
	}
	r.conns = nil
	r.connsMu.Unlock()
	r.mu.Lock()
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	r.wg.Wait()
}
