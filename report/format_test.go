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

// TestFormats: every format parses from its name and writes what its
// writer writes; an unknown name is an error that lists the formats.
func TestFormats(t *testing.T) {
	assert.Equal(t, []report.Format{"text", "markdown", "json"}, report.Formats()[:3])
	writers := map[report.Format]func(io.Writer, *report.Report, report.Options) error{
		"text": report.Text, "markdown": report.Markdown, "json": report.JSON, "html": report.HTML,
	}
	opts := report.Options{Trace: true}
	for _, f := range report.Formats() {
		got, err := report.ParseFormat(string(f))
		require.NoError(t, err)
		assert.Equal(t, f, got)
		var b bytes.Buffer
		require.NoError(t, f.Write(&b, sample(), opts), f)
		assert.NotEmpty(t, b.String(), f)
		if w, ok := writers[f]; ok {
			var want bytes.Buffer
			require.NoError(t, w(&want, sample(), opts))
			assert.Equal(t, want.String(), b.String(), f)
		}
	}
	for _, name := range []string{"xml", "", "Text"} {
		_, err := report.ParseFormat(name)
		assert.EqualError(t, err, `unknown format "`+name+`": want `+report.FormatList())
	}
	assert.Contains(t, report.FormatList(), "text, markdown")
	assert.Error(t, report.Format("xml").Write(io.Discard, sample(), opts))
}

// TestReadJSON: a report read back from its JSON renders as the report
// itself, in every format.
func TestReadJSON(t *testing.T) {
	rep := sample()
	rep.When = rep.When.Truncate(time.Second) // RFC 3339 keeps seconds
	var b bytes.Buffer
	require.NoError(t, report.JSON(&b, rep, report.Options{}))
	back, err := report.ReadJSON(&b)
	require.NoError(t, err)
	for _, f := range report.Formats() {
		var want, got bytes.Buffer
		require.NoError(t, f.Write(&want, rep, report.Options{Trace: true}))
		require.NoError(t, f.Write(&got, back, report.Options{Trace: true}))
		assert.Equal(t, want.String(), got.String(), f)
	}
	_, err = report.ReadJSON(strings.NewReader(`{"version": 1}`))
	assert.ErrorContains(t, err, "version 1, want 2")
}
