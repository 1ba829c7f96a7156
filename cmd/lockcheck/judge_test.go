package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJudge: a run saved as JSON is judged again without Redis, each break
// from its history to its verdict and reason; a history that no longer
// shows its break, or a file that is not a saved run, is said.
func TestJudge(t *testing.T) {
	code, out, _ := run(t, append([]string{"-format", "json"}, subset...)...)
	require.Equal(t, exitOK, code)
	dir := t.TempDir()
	saved := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(saved, []byte(out), 0o644))

	code, out, errOut := run(t, "-judge", saved)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "setnxpx safe-release: breaks, judged again from its history: the same verdict and reason")
	assert.Contains(t, out, "setnxpx double-release: breaks, judged again from its history: the same verdict and reason")
	assert.Contains(t, out, "luatoken safe-release: holds, as recorded: only a break keeps a history to judge")
	assert.Contains(t, out, "2 results judged again from their histories, 2 with the recorded verdict and reason; 2 kept no history")

	// Without C's grant, the history of setnxpx's safe-release no longer
	// shows that C got in while B held the lock.
	b, err := os.ReadFile(saved)
	require.NoError(t, err)
	cut := strings.ReplaceAll(string(b), `"kind": "acquired"`, `"kind": "not-acquired"`)
	require.NotEqual(t, string(b), cut)
	bad := filepath.Join(dir, "cut.json")
	require.NoError(t, os.WriteFile(bad, []byte(cut), 0o644))
	code, out, _ = run(t, "-judge", bad)
	assert.Equal(t, exitMismatch, code)
	assert.Contains(t, out, "setnxpx safe-release: recorded breaks, and its history gives no verdict: judge: the scenario claims that one-holder was broken, but its history does not show it")

	code, _, errOut = run(t, "-judge", filepath.Join(dir, "none.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "lockcheck: -judge: open ")
	code, _, errOut = run(t, "-judge", saved, "-strategy", "luatoken")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-judge takes no other flag than -lang")
}

// TestKind: -kind runs the read-write locks or the semaphores on the
// properties of their kind, against their own grid.
func TestKind(t *testing.T) {
	code, out, errOut := run(t, "-kind", "semaphore")
	assert.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^property +zsetsemaphore +countersemaphore +semlua$`, out)
	assert.Regexp(t, `(?m)^permit-crash-recovery +breaks +breaks +holds$`, out)
	assert.NotContains(t, out, "exclusion")

	code, _, errOut = run(t, "-kind", "read-write", "-property", "permit-bound")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `-property: unknown property "permit-bound"`)
	code, _, errOut = run(t, "-kind", "fair")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `-kind "fair": want mutex, read-write or semaphore`)
}
