package catalog_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func TestStrategies(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range catalog.Strategies() {
		assert.False(t, seen[e.Name], "%s listed twice", e.Name)
		seen[e.Name] = true
		assert.NotEmpty(t, e.Sources, e.Name)
		assert.NotNil(t, e.New, e.Name)
		for _, p := range append(e.Expect.Breaks, e.Expect.NotApplicable...) {
			_, err := locktest.ParseProperty(string(p))
			assert.NoError(t, err, e.Name)
		}
		got, ok := catalog.Lookup(e.Name)
		assert.True(t, ok)
		assert.Equal(t, e.Name, got.Name)
	}
	_, ok := catalog.Lookup("no-such-lock")
	assert.False(t, ok)
	rl, ok := catalog.Lookup("redlock")
	require.True(t, ok)
	assert.Equal(t, 5, rl.Masters, "Redlock's column runs over five masters")
	cfg := rl.Config(locktest.Config{Addr: "x"})
	assert.Equal(t, 5, cfg.Masters)
	assert.Equal(t, "x", cfg.Addr)
}

// TestMatrixRepeatable runs the whole matrix LOCKLAB_REPEAT times (`make
// repeat` asks for 10) and requires every verdict to be the one declared,
// the same every time. Without LOCKLAB_REPEAT it is skipped: go test ./...
// checks every strategy's declaration once, in the whole-matrix run of
// cmd/lockcheck's tests, from which the docs are compared too.
func TestMatrixRepeatable(t *testing.T) {
	s := os.Getenv("LOCKLAB_REPEAT")
	if s == "" || testing.Short() {
		t.Skip("LOCKLAB_REPEAT is not set: cmd/lockcheck's tests run the whole matrix once")
	}
	runs, err := strconv.Atoi(s)
	require.NoError(t, err, "LOCKLAB_REPEAT")
	addr := redistest.Shared(t).Addr
	var first string
	for i := 1; i <= runs; i++ {
		var b strings.Builder
		for _, e := range catalog.Strategies() {
			for _, p := range locktest.AllProperties() {
				cfg := e.Config(locktest.Config{Addr: addr, Key: fmt.Sprintf("%s:%d:%s", redistest.Key(t), i, e.Name)})
				res := locktest.Check(context.Background(), cfg, p)
				strict := e.Expect
				strict.Strict = true // the verdict declared, exactly
				if msg := strict.Mismatch(res); msg != "" {
					t.Errorf("run %d: %s: %s", i, e.Name, msg)
				}
				fmt.Fprintf(&b, "%s %s %s\n", e.Name, p, res.Verdict)
			}
		}
		if i == 1 {
			first = b.String()
		} else {
			assert.Equal(t, first, b.String(), "run %d gave other verdicts than run 1", i)
		}
		t.Logf("run %d of %d: %d verdicts", i, runs, strings.Count(b.String(), "\n"))
	}
}
