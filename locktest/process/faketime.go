package process

import (
	"fmt"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/faketime"
)

// ErrNoFaketime is returned for a client with a skewed clock when
// libfaketime cannot be found.
var ErrNoFaketime = faketime.ErrNotFound

// FindFaketime returns the path of libfaketime.so.1: the one named by
// LOCKLAB_LIBFAKETIME if set, else the first found where Debian's
// libfaketime package (installed with the faketime package) puts it.
func FindFaketime() (string, error) { return faketime.Find() }

// faketimeEnv returns the environment that runs a program with its wall
// clock skew ahead (behind, when negative) of the real one: libfaketime
// preloaded with a relative offset in seconds, to the microsecond. The
// monotonic clocks are left alone, as the suite's skewed Clock moves only
// the time of day.
func faketimeEnv(lib string, skew time.Duration, environ []string) []string {
	preload := lib
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok && v != "" {
			preload = lib + ":" + v
		}
	}
	return []string{
		"LD_PRELOAD=" + preload,
		"FAKETIME=" + faketimeOffset(skew),
		"FAKETIME_NO_CACHE=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
	}
}

// faketimeOffset is libfaketime's relative offset for skew: "+10.000000s",
// "-0.120000s".
func faketimeOffset(skew time.Duration) string {
	sign := "+"
	if skew < 0 {
		sign, skew = "-", -skew
	}
	return fmt.Sprintf("%s%d.%06ds", sign, skew/time.Second, (skew%time.Second)/time.Microsecond)
}
