package docblock_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/locklab/locklab/docblock"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/recipes"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSession runs the example program of docs/exec.md twice, as two
// session blocks, each against a Redis: each text is that run's exchange,
// with the handle the program chose carried into the later requests, and
// the two runs, whose handles differ, have the same shape.
func TestSession(t *testing.T) {
	langtest.Need(t, langtest.RedisPy)
	s := docblock.Session{Argv: recipes.TokenLock().Argv, Client: "A", Requests: []string{
		"acquire example:lock 5000", "release HANDLE", "release HANDLE", "refresh HANDLE 5000",
	}}
	style := docblock.Style{Marker: "lockcheck", Make: "make docs", Sessions: map[string]docblock.Session{"one": s, "two": s}}
	page := "<!-- lockcheck:session name=one -->\n<!-- /lockcheck:session -->\n" +
		"<!-- lockcheck:session name=two -->\n<!-- /lockcheck:session -->\n"
	blocks, err := style.Parse(page)
	require.NoError(t, err)
	require.Len(t, blocks, 2)

	var texts, shapes, digests []string
	for _, b := range blocks {
		text, err := style.Generate(b, &report.Report{}, "..", report.English)
		require.NoError(t, err)
		shape, digest, err := style.Shape(b, &report.Report{}, "..", report.English)
		require.NoError(t, err)
		texts, shapes, digests = append(texts, text), append(shapes, shape), append(digests, digest)
	}
	for _, text := range texts {
		h := regexp.MustCompile(`(?m)^< ok ([0-9a-f]{32})$`).FindStringSubmatch(text)
		require.NotNil(t, h, text)
		want := "```text\n$ LOCKLAB_REDIS_ADDR=ADDR LOCKLAB_CLIENT=A /usr/bin/python3 recipes/python/token_lock.py\n" +
			"< ready refresh\n> acquire example:lock 5000\n< ok HANDLE\n> release HANDLE\n< ok\n" +
			"> release HANDLE\n< not-held the key no longer holds this token\n" +
			"> refresh HANDLE 5000\n< not-held the key no longer holds this token\n```\n"
		addr := regexp.MustCompile(`LOCKLAB_REDIS_ADDR=(\S+)`).FindStringSubmatch(text)
		require.NotNil(t, addr, text)
		got := strings.ReplaceAll(strings.Replace(text, addr[1], "ADDR", 1), h[1], "HANDLE")
		assert.Equal(t, want, got)
		assert.Equal(t, want, shapes[0], "the shape writes the address and the handle as placeholders")
	}
	assert.NotEqual(t, texts[0], texts[1], "each block comes from a run of its own")
	assert.Equal(t, digests[0], digests[1], "two runs, one shape")
}
