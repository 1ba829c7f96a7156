package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExec checks the PHP copy of setnxpx from the command line: its
// column, with the verdicts found, none declared.
func TestExec(t *testing.T) {
	langtest.Need(t, langtest.PHP)
	code, out, errOut := run(t, "-exec", "cd ../.. && php recipes/php/setnxpx.php", "-name", "setnxpx.php",
		"-property", "double-release,clock-skew,release-frees")
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^property +setnxpx\.php$`, out)
	assert.Regexp(t, `(?m)^release-frees +holds$`, out)
	assert.Regexp(t, `(?m)^clock-skew +n/a$`, out)
	assert.Regexp(t, `(?m)^double-release +breaks$`, out)
	assert.Contains(t, out, "Checks: 3, none with a declared verdict; without a verdict (error): 0.")
	assert.Regexp(t, `(?m)^setnxpx\.php +double-release +breaks +found +[0-9.]+ms$`, errOut)

	// The JSON says that nothing was declared.
	code, out, _ = run(t, "-exec", "cd ../.. && php recipes/php/setnxpx.php", "-property", "double-release", "-format", "json")
	assert.Equal(t, exitOK, code)
	var rep struct {
		Results []struct {
			Strategy, Verdict, Expected string
			Match                       bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Results, 1)
	assert.Equal(t, "cd ../.. && php recipes/php/setnxpx.php", rep.Results[0].Strategy, "the column is named after the command without -name")
	assert.Equal(t, "breaks", rep.Results[0].Verdict)
	assert.Equal(t, "", rep.Results[0].Expected)
	assert.True(t, rep.Results[0].Match)
}

// TestExecGranularity: a program that announces granularity=1000 on its
// ready line, and one run with -granularity 1s, run at a scale of seconds,
// and the header says so and why.
func TestExecGranularity(t *testing.T) {
	langtest.Need(t, langtest.PHP)
	if testing.Short() {
		t.Skip("runs at a scale of seconds")
	}
	announced := "cd ../.. && php recipes/php/setnxpx.php | sed -u '1s/$/ granularity=1000/'"
	code, out, errOut := run(t, "-exec", announced, "-name", "setnxpx-s", "-property", "crash-recovery,release-frees")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Time scale: setnxpx-s at a granularity of 1s (the step in which the lock counts TTLs, which it announces)")
	assert.Regexp(t, `(?m)^crash-recovery +holds$`, out)

	code, out, _ = run(t, "-exec", "cd ../.. && php recipes/php/setnxpx.php", "-name", "setnxpx", "-granularity", "1s", "-property", "crash-recovery", "-format", "json")
	assert.Equal(t, exitOK, code)
	var rep struct {
		Results []struct {
			Verdict       string
			GranularityMS int64  `json:"granularity_ms"`
			ScaleFrom     string `json:"scale_from"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Results, 1)
	assert.Equal(t, "holds", rep.Results[0].Verdict)
	assert.Equal(t, int64(1000), rep.Results[0].GranularityMS)
	assert.Equal(t, "flag", rep.Results[0].ScaleFrom)

	code, _, errOut = run(t, "-exec", "true", "-granularity", "1500us")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "-granularity 1.5ms: want a whole number of milliseconds, 1ms or more")
}

// TestExecBroken: a program that answers garbage gets an error for each
// property, and lockcheck exits 1, saying what came back.
func TestExecBroken(t *testing.T) {
	code, out, errOut := run(t, "-exec", `echo ready; read -r l; echo 'hello there'`, "-name", "garbage", "-property", "exclusion,double-release")
	assert.Equal(t, exitMismatch, code)
	assert.Regexp(t, `(?m)^exclusion +error!$`, out)
	assert.Contains(t, out, "Checks: 2, none with a declared verdict; without a verdict (error): 2.")
	assert.Contains(t, out, `garbage / exclusion: no verdict: `)
	assert.Contains(t, out, `it answered "hello there", which is none of ok <handle>, busy, error <message>`)
	assert.Regexp(t, `(?m)^garbage +exclusion +error +NO VERDICT! +[0-9.]+ms  `, errOut)
}

func TestExecFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-exec", "php x.php", "-strategy", "setnxpx"}, "-exec checks its own program: drop -strategy"},
		{[]string{"-name", "x"}, "-name names the column of -exec: give -exec COMMAND too"},
		{[]string{"-update", "-exec", "php x.php"}, "-update writes the declared grid of the catalog's strategies: drop -exec"},
	} {
		var stdout, stderr bytes.Buffer
		e := env{stdout: &stdout, stderr: &stderr, start: func(context.Context) (*redistest.Server, error) {
			t.Fatal("lockcheck looked for a Redis despite bad flags")
			return nil, nil
		}}
		assert.Equal(t, exitUsage, lockcheck(context.Background(), tt.args, e), tt.args)
		assert.Contains(t, stderr.String(), tt.want)
	}
}

// TestExecStderr: a program that fails before its ready line, or a
// command that does not exist, shows in the text output what it wrote to
// standard error, under the check it left without a verdict.
func TestExecStderr(t *testing.T) {
	for _, tt := range []struct {
		command string
		status  string
		want    []string
	}{
		{`echo 'Traceback (most recent call last):' >&2; echo "ModuleNotFoundError: No module named 'redis'" >&2; exit 1`,
			"exit status 1", []string{"        Traceback (most recent call last):\n", "        ModuleNotFoundError: No module named 'redis'\n"}},
		{`locklab-no-such-command`, "exit status 127", []string{"locklab-no-such-command: not found\n"}},
	} {
		code, out, _ := run(t, "-exec", tt.command, "-name", "failing", "-property", "exclusion")
		assert.Equal(t, exitMismatch, code, tt.command)
		assert.Contains(t, out, "failing / exclusion: no verdict: ", tt.command)
		assert.Contains(t, out, "it exited before it wrote its ready line ("+tt.status+"); its standard error ended with:\n", tt.command)
		for _, w := range tt.want {
			assert.Contains(t, out, w, tt.command)
		}
	}
}

// TestExecNoLogin: a program that sends its commands without logging in
// to its proxy (no AUTH with LOCKLAB_REDIS_PASSWORD) gets NOAUTH from it;
// lockcheck says so once, prints no verdict and exits 2, instead of
// printing "Authentication required." as every property's failure.
func TestExecNoLogin(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "nologin.sh")
	require.NoError(t, os.WriteFile(prog, []byte(`echo ready
while read -r req key ttl; do
	exec 3<>"/dev/tcp/${LOCKLAB_REDIS_ADDR%:*}/${LOCKLAB_REDIS_ADDR##*:}"
	printf 'SET %s 1 NX PX %s\r\n' "$key" "$ttl" >&3
	IFS= read -r reply <&3
	exec 3>&-
	echo "error ${reply%$'\r'}"
done
`), 0o600))
	code, out, errOut := run(t, "-exec", "bash "+prog, "-name", "nologin", "-property", "exclusion,double-release")
	assert.Equal(t, exitUsage, code)
	msg := "a client sent commands to its proxy without logging in (NOAUTH): a lock logs in with its Client.Password; a program sends AUTH with LOCKLAB_REDIS_PASSWORD first (docs/exec.md)"
	assert.Equal(t, 1, strings.Count(errOut, msg), "the message, once")
	assert.NotContains(t, out, "Authentication required")
	assert.NotRegexp(t, `(?m)^exclusion `, out, "no verdict is printed")
}
