package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWrap: a diagram's text wraps at a space, anywhere in Chinese, inside
// a word longer than a line, and at a line break; no line is wider than
// asked, and nothing is lost but the spaces it broke at.
func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"A keeps working", "past its TTL"}, wrap("A keeps working past its TTL", 16))
	assert.Equal(t, []string{"lock acquired"}, wrap("lock acquired", 16))
	assert.Equal(t, []string{"abcdefgh", "ijkl"}, wrap("abcdefghijkl", 8))
	assert.Equal(t, []string{"EVAL x", "return 0"}, wrap("EVAL x\nreturn 0", 40))
	zh := "A 干活超过了 TTL（60ms）；B 最多等待 560ms"
	lines := wrap(zh, 12)
	for _, l := range lines {
		assert.LessOrEqual(t, width(l), 12, "%q", l)
	}
	assert.Equal(t, strings.ReplaceAll(zh, " ", ""), strings.ReplaceAll(strings.Join(lines, ""), " ", ""))
}
