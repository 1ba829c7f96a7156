package report_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormats: every format parses from its name, and a Writer writes
// each differently, text when it names none; an unknown name is an error
// that lists the formats.
func TestFormats(t *testing.T) {
	assert.Equal(t, []report.Format{report.Text, report.Markdown, report.JSON, report.HTML}, report.Formats())
	var text bytes.Buffer
	require.NoError(t, report.Writer{Trace: true}.Write(&text, sample()))
	seen := map[string]report.Format{}
	for _, f := range report.Formats() {
		got, err := report.ParseFormat(string(f))
		require.NoError(t, err)
		assert.Equal(t, f, got)
		var b bytes.Buffer
		require.NoError(t, report.Writer{Format: f, Trace: true}.Write(&b, sample()), f)
		assert.NotEmpty(t, b.String(), f)
		if f == report.Text {
			assert.Equal(t, text.String(), b.String(), "the default format")
		}
		assert.NotContains(t, seen, b.String(), "%s writes what %s does", f, seen[b.String()])
		seen[b.String()] = f
	}
	for _, name := range []string{"xml", "", "Text"} {
		_, err := report.ParseFormat(name)
		assert.EqualError(t, err, `unknown format "`+name+`": want `+report.FormatList())
	}
	assert.Contains(t, report.FormatList(), "text, markdown")
	assert.EqualError(t, report.Writer{Format: "xml"}.Write(io.Discard, sample()), `unknown format "xml": want `+report.FormatList())
}

// TestReadJSON: a report read back from its JSON renders as the report
// itself, in every format.
func TestReadJSON(t *testing.T) {
	rep := sample()
	rep.When = rep.When.Truncate(time.Second) // RFC 3339 keeps seconds
	var b bytes.Buffer
	require.NoError(t, report.Writer{Format: report.JSON}.Write(&b, rep))
	back, err := report.ReadJSON(&b)
	require.NoError(t, err)
	for _, f := range report.Formats() {
		var want, got bytes.Buffer
		wr := report.Writer{Format: f, Trace: true}
		require.NoError(t, wr.Write(&want, rep))
		require.NoError(t, wr.Write(&got, back))
		assert.Equal(t, want.String(), got.String(), f)
	}
	_, err = report.ReadJSON(strings.NewReader(`{"version": 1}`))
	assert.ErrorContains(t, err, "version 1, want 2")
}
