package peers_test

import (
	"os"
	"strings"
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestConformance runs the whole suite on each peer, through its proxy on
// a real Redis, and requires the declared verdicts, n/a included.
func TestConformance(t *testing.T) {
	for _, e := range peers.Peers() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			require.True(t, e.Expect.Strict, "the peers' declarations are strict")
			locktest.RunConfig(t, e.Config(locktest.Config{Addr: redistest.Shared(t).Addr}), e.Expect)
		})
	}
}

func TestColumns(t *testing.T) {
	var names []string
	for _, e := range peers.Columns() {
		names = append(names, e.Name)
		for _, p := range append(e.Expect.Breaks, e.Expect.NotApplicable...) {
			_, err := locktest.ParseProperty(string(p))
			assert.NoError(t, err, e.Name)
		}
		got, ok := peers.Lookup(e.Name)
		assert.True(t, ok, e.Name)
		assert.Equal(t, e.Sources, got.Sources)
	}
	assert.Equal(t, []string{"redsync", "redislock", "goredislock", "go-zero", "go-zero-shared", "rueidislock", "rueidislock-km1", "luatoken"}, names)
	for _, e := range peers.Peers() {
		assert.Contains(t, catalog.Outside, e.Name, "a peer's column is declared in the grid")
		for _, p := range locktest.AllProperties() {
			assert.NotEmpty(t, catalog.Declared().Verdict(e.Name, p), "%s: %s declares nothing for %s", catalog.GridFile, e.Name, p)
		}
		assert.Equal(t, e.Expect, func() locktest.Expect {
			want := catalog.Declare(catalog.Entry{Name: e.Name}).Expect
			want.Strict = true
			return want
		}(), "%s: its column of %s, strict", e.Name, catalog.GridFile)
	}
	_, ok := peers.Lookup("redlock")
	assert.False(t, ok)
}

// TestModules checks that the versions the peers name are the ones that
// go.mod requires.
func TestModules(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	required := map[string]string{}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") {
			required[f[0]] = f[0] + " " + f[1]
		}
	}
	for _, m := range []string{peers.RedsyncModule, peers.RedislockModule, peers.GoRedisModule, peers.GoZeroModule, peers.RueidisModule} {
		path, _, _ := strings.Cut(m, " ")
		assert.Equal(t, m, required[path])
	}
}
