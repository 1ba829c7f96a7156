package process

import (
	"fmt"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Factory returns a locktest.Factory that runs argv once per simulated
// client and drives it over the line protocol (see the package
// documentation). The program gets LOCKLAB_REDIS_ADDR, the client's own
// proxy to Redis, LOCKLAB_REDIS_PASSWORD, what it must log in to the proxy
// with, and LOCKLAB_CLIENT, the client's name; a client whose
// clock is skewed runs it under libfaketime. A crash of the client kills
// the program (SIGKILL, with everything it started); the end of the run
// closes its standard input and kills it if it has not exited within the
// grace period (WithGrace).
func Factory(argv []string, opts ...Option) locktest.Factory {
	cfg := newConfig(argv, opts)
	return func(c locktest.Client) (strategy.Strategy, error) {
		s, p, err := newStrategy(cfg, spec{
			client: c.Name,
			addr:   c.Addr,
			secret: c.Password,
			skew:   c.Skew,
			clock:  clockNotice(c.Clock, c.Skew),
		})
		if err != nil {
			return nil, err
		}
		c.OnCrash(p.crash)
		c.Cleanup(p.close)
		return s.kind(), nil
	}
}

// clockNotice is what a clock notice does: it reads the client's clock,
// which records the reading in the timeline and counts it (clock-skew
// tells a lock that reads no clock by the count), and checks that the
// program's clock runs as far ahead as the client's: a program that does
// not read the time through the C library (a statically linked one) is
// not moved by libfaketime.
func clockNotice(clock strategy.Clock, skew time.Duration) func(ms int64) error {
	return func(ms int64) error {
		now := clock.Now()
		if skew == 0 {
			return nil
		}
		off := time.Duration(ms-now.UnixMilli()) * time.Millisecond
		if off.Abs() > skew.Abs()/2 {
			return fmt.Errorf("its clock notice read %d, %v from the client's clock, which runs %v ahead: the skew did not reach the program (libfaketime works through the C library's time functions, which a statically linked program does not call)",
				ms, off, skew)
		}
		return nil
	}
}
