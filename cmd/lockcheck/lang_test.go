package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLangText(t *testing.T) {
	code, out, errOut := run(t, append([]string{"-lang", "zh"}, subset...)...)
	assert.Equal(t, exitOK, code)
	assert.Regexp(t, `^Redis \S+ 上的判定，\S+\n\n`, out)
	assert.Regexp(t, `(?m)^性质 +setnxpx +luatoken$`, out)
	assert.Regexp(t, `(?m)^safe-release +breaks +holds$`, out)
	assert.Contains(t, out, "全部 4 项判定都与声明的一致。")
	assert.Regexp(t, `(?m)^setnxpx +safe-release +breaks +as declared +[0-9.]+ms$`, errOut, "the progress stays in English")
}

func TestLangMarkdownTrace(t *testing.T) {
	code, out, _ := run(t, "-lang", "zh", "-format", "markdown", "-trace", "-strategy", "setnxpx", "-property", "double-release")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "| 性质 | setnxpx |\n|---|---|\n| double-release | breaks |\n")
	assert.Contains(t, out, "### setnxpx：double-release\n\nA 释放之后 B 拿到了锁；然后，A 的第二次释放删除了 K，也就是 B 的锁：B 仍持有锁时，C 也拿到了锁。\n\n```mermaid\n")
	assert.Contains(t, out, "    A->>Redis: DEL K\n    Redis-->>A: 1\n    Note over A: 已释放\n")
	assert.Contains(t, out, "    Note over C: 拿到锁\n")
}

// TestLangJSON: in Chinese the reasons and diagrams are translated; the
// field names, verdicts and timelines are not.
func TestLangJSON(t *testing.T) {
	code, out, _ := run(t, append([]string{"-lang", "zh", "-format", "json", "-trace"}, subset...)...)
	assert.Equal(t, exitOK, code)
	var got report.JSONReport
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got.Results, 4)
	for _, r := range got.Results {
		id := r.Strategy + "/" + string(r.Property)
		assert.True(t, strings.ContainsFunc(r.Reason, func(c rune) bool { return unicode.Is(unicode.Han, c) }), "%s: %s", id, r.Reason)
		assert.NotEmpty(t, r.Message.ID, "%s: the reason as data, whatever the language", id)
		if r.Verdict == locktest.Breaks {
			assert.Contains(t, r.Mermaid, "Note over A: 拿到锁\n", id)
			if assert.NotNil(t, r.Timeline[1].Msg, id) {
				assert.Equal(t, "event.acquired", r.Timeline[1].Msg.ID, "%s: the timeline is the suite's own", id)
			}
		}
	}
	var raw struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, f := range []string{"strategy", "property", "verdict", "expected", "match", "reason", "message", "elapsed_ms", "timeline", "mermaid"} {
		assert.Contains(t, raw.Results[0], f)
	}
}
