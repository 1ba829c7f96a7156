package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestColumns: the text matrix's width is COLUMNS when it is a number,
// else 100 for what is not a terminal.
func TestColumns(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	t.Setenv("COLUMNS", "77")
	assert.Equal(t, 77, columns(w))
	for _, v := range []string{"", "wide", "0", "-3"} {
		t.Setenv("COLUMNS", v)
		assert.Equal(t, defaultWidth, columns(w), "COLUMNS=%q on a pipe", v)
	}
}
