package report

import (
	"fmt"
	"io"
	"strings"
)

// Format names a way to write a Report: text, markdown, json, html (see
// Writer.Format).
type Format string

// The formats.
const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
	HTML     Format = "html"
)

// formats are the formats and their writers, in the order the commands'
// -format flag lists them, text first, the default: a new format is one
// more entry here, and its writer.
var formats = []struct {
	name  Format
	write func(Writer, io.Writer, *Report) error
}{
	{Text, Writer.writeText},
	{Markdown, Writer.writeMarkdown},
	{JSON, Writer.writeJSON},
	{HTML, Writer.writeHTML},
}

// Formats returns the formats there are, text first.
func Formats() []Format {
	out := make([]Format, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}

// ParseFormat returns the format named s; an unknown name is an error
// that lists the formats.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if string(f.name) == s {
			return f.name, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: want %s", s, FormatList())
}

// FormatList names the formats as a flag's help does: "text, markdown or
// json".
func FormatList() string {
	var names []string
	for _, f := range formats {
		names = append(names, string(f.name))
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// writerOf returns the writer of format f, text's when f is "".
func writerOf(f Format) (func(Writer, io.Writer, *Report) error, error) {
	if f == "" {
		return formats[0].write, nil
	}
	for _, fm := range formats {
		if fm.name == f {
			return fm.write, nil
		}
	}
	_, err := ParseFormat(string(f))
	return nil, err
}
