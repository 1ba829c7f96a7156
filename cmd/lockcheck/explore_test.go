package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplore: -explore finds setnxdel's break from a seed, prints the
// plan that reproduces it, and -judge confirms it from the saved history;
// the explore flags are refused where they mean nothing.
func TestExplore(t *testing.T) {
	t.Setenv("LOCKLAB_EXPLORE", "shrink=off")
	// The exploration ends at its first violation: alone, run 1 from
	// seed 1 shows it; under a loaded make test, 60 runs once did not.
	code, out, errOut := run(t, "-explore", "-strategy", "setnxdel", "-seed", "1", "-runs", "400", "-format", "json")
	require.Equal(t, exitMismatch, code, errOut)
	assert.Regexp(t, `"verdict": "breaks"`, out)
	assert.Contains(t, out, "not shrunk: ", "shrink=off says so, rather than reproduced 0 of 0")
	seed := regexp.MustCompile(`seed (\d+): \d+ clients?`).FindStringSubmatch(out)
	require.NotNil(t, seed, "the plan is printed: %s", out)
	saved := filepath.Join(t.TempDir(), "explored.json")
	require.NoError(t, os.WriteFile(saved, []byte(out), 0o644))
	code, judged, errOut := run(t, "-judge", saved)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, judged, "setnxdel explore: breaks, judged again from its history: the same verdict and reason")

	for _, args := range [][]string{
		{"-seed", "3"},
		{"-for", "1s"},
		{"-explore", "-property", "exclusion"},
		{"-explore", "-update"},
		{"-explore", "-for", "-1s"},
	} {
		code, _, errOut := run(t, args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, errOut)
	}
}
