package recipes_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/recipes"
	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// quick are the PHP columns go test runs by default, one of each kind of
// recipe: a one-command lock released with DEL, a timestamp lock (clock
// notices, a skewed clock), a WATCH/MULTI/EXEC release, and a Lua release
// with refresh. LOCKLAB_PHP=all runs every column (make test-langs), or
// LOCKLAB_PHP=a,b the ones named.
var quick = []string{"setnxpx", "getset", "watchdel", "luatoken"}

func selected(t *testing.T) []recipes.Program {
	want := quick
	switch v := os.Getenv("LOCKLAB_PHP"); v {
	case "":
	case "all":
		return recipes.PHP()
	default:
		want = strings.Split(v, ",")
	}
	var out []recipes.Program
	for _, p := range recipes.PHP() {
		if slices.Contains(want, p.Name) {
			out = append(out, p)
		}
	}
	if len(out) != len(want) {
		t.Fatalf("LOCKLAB_PHP=%s names a column that has no PHP recipe", os.Getenv("LOCKLAB_PHP"))
	}
	return out
}

// TestPHP runs the PHP recipes through the suite: each column must give
// its Go column's verdicts, cell by cell, n/a included.
func TestPHP(t *testing.T) {
	langtest.Need(t, langtest.PHP, langtest.Faketime)
	start := time.Now()
	progs := selected(t)
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			began := time.Now()
			locktest.Run(t, p.Factory(".."), p.Expect)
			t.Logf("%s: %v", p.Name, time.Since(began).Round(time.Millisecond))
		})
	}
	t.Logf("%d PHP columns in %v", len(progs), time.Since(start).Round(time.Millisecond))
}

// TestRedisPy runs redis-py's Lock through the suite against its declared
// verdicts.
func TestRedisPy(t *testing.T) {
	langtest.Need(t, langtest.RedisPy)
	p := recipes.RedisPy()
	start := time.Now()
	locktest.Run(t, p.Factory(".."), p.Expect)
	t.Logf("%v", time.Since(start).Round(time.Millisecond))
}

// TestTokenLock runs the example program of docs/exec.md.
func TestTokenLock(t *testing.T) {
	langtest.Need(t, langtest.RedisPy)
	p := recipes.TokenLock()
	locktest.Run(t, p.Factory(".."), p.Expect)
}
