package redistest

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// The clock shim: a small library preloaded into a node's redis-server
// that adds a shift, read from a file the node's process maps, to every
// reading of the time of day (clock_gettime of CLOCK_REALTIME,
// gettimeofday, time). Redis reads the time of day to expire keys, so a
// shift forward expires them early, as a server whose clock jumps does.
// The monotonic clocks are left alone.
//
// libfaketime, which moves the clocks of the suite's PHP and Python
// programs, cannot be preloaded into redis-server: Debian's is linked with
// jemalloc, whose start-up reads the clock while libfaketime is itself
// starting up, and the process fails (a known clash the library's authors
// have not solved). The shim has no start-up of that kind: it reads the
// clock with a system call and the shift from memory.
//
//go:embed clockshift/clockshift.c
var clockShiftSrc []byte

// shimEnv names the file holding the shift, in nanoseconds, as a
// little-endian int64.
const shimEnv = "LOCKLAB_CLOCK_SHIFT_FILE"

var (
	shimOnce sync.Once
	shimPath string
	shimErr  error
)

// clockShim returns the path of the shim, built once per process with the
// C compiler (cc, which go test -race needs too) in a directory named
// after its source, so that processes share one build.
func clockShim() (string, error) {
	shimOnce.Do(func() { shimPath, shimErr = buildShim() })
	return shimPath, shimErr
}

func buildShim() (string, error) {
	sum := sha256.Sum256(clockShiftSrc)
	dir := filepath.Join(os.TempDir(), "locklab-clockshift-"+hex.EncodeToString(sum[:6]))
	lib := filepath.Join(dir, "clockshift.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", fmt.Errorf("redistest: moving a node's clock needs a C compiler (cc) to build the clock shim: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("redistest: the clock shim: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("redistest: the clock shim: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "clockshift.c")
	if err := os.WriteFile(src, clockShiftSrc, 0o644); err != nil {
		return "", fmt.Errorf("redistest: the clock shim: %w", err)
	}
	out := filepath.Join(tmp, "clockshift.so")
	if b, err := exec.Command(cc, "-O2", "-shared", "-fPIC", "-o", out, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("redistest: building the clock shim with %s: %w\n%s", cc, err, b)
	}
	// Renamed into place, so that a concurrent build never sees half a file.
	if err := os.Rename(out, lib); err != nil {
		return "", fmt.Errorf("redistest: the clock shim: %w", err)
	}
	return lib, nil
}

// Option changes how a topology's nodes run.
type Option func(*options)

type options struct {
	movableClock bool
}

// WithMovableClocks runs every node of the topology under a clock shim, so
// that [Node.ShiftClock] can move its time of day. It needs a C compiler
// (cc) to build the shim, once.
func WithMovableClocks() Option {
	return func(o *options) { o.movableClock = true }
}

func newOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// movableClock prepares n to run under the clock shim, with no shift yet.
func (n *Node) movableClock() error {
	lib, err := clockShim()
	if err != nil {
		return err
	}
	n.shiftFile = filepath.Join(n.dir, "clock-shift")
	if err := os.WriteFile(n.shiftFile, make([]byte, 8), 0o644); err != nil {
		return fmt.Errorf("redistest: %s: %w", n.Name, err)
	}
	preload := lib
	if v := os.Getenv("LD_PRELOAD"); v != "" {
		preload += ":" + v
	}
	n.env = []string{"LD_PRELOAD=" + preload, shimEnv + "=" + n.shiftFile}
	return nil
}

// ErrFixedClock is returned by [Node.ShiftClock] on a node not started
// [WithMovableClocks].
var ErrFixedClock = errors.New("redistest: the node's clock cannot be moved: start its topology WithMovableClocks")

// ShiftClock sets how far the node's time of day runs ahead of the real
// one (behind, when negative), from now on, as a clock that jumps: a key
// whose expiry time the shifted clock has passed is expired, by the next
// command that reads it or by the server's own expiry cycle. The shift
// holds across restarts. The node must run under the clock shim
// ([WithMovableClocks]).
func (n *Node) ShiftClock(d time.Duration) error {
	if n.shiftFile == "" {
		return ErrFixedClock
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(d.Nanoseconds()))
	f, err := os.OpenFile(n.shiftFile, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("redistest: %s: %w", n.Name, err)
	}
	_, err = f.WriteAt(b[:], 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("redistest: %s: shifting its clock: %w", n.Name, err)
	}
	return nil
}

// ServerTime returns the node's time of day, as its TIME command reads it.
func (n *Node) ServerTime(ctx context.Context) (time.Time, error) {
	t, err := redis.Int64s(n.Do(ctx, "TIME"))
	if err != nil {
		return time.Time{}, fmt.Errorf("redistest: %s: TIME: %w", n.Name, err)
	}
	if len(t) != 2 {
		return time.Time{}, fmt.Errorf("redistest: %s: TIME answered %v", n.Name, t)
	}
	return time.Unix(t[0], t[1]*1000), nil
}
