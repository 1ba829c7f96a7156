package docblock

import (
	"fmt"
	"io"
	"strings"

	"github.com/locklab/locklab/report"
)

// Command is a run of the tool that a command block shows, as the tool's
// own run cannot: with a program of its own (-exec), a flag that fails.
type Command struct {
	// Args follow the tool's name; -lang is added on a page in another
	// language than English.
	Args []string
	// From names the line where the sample starts: the first line that
	// contains it, and the lines under it indented deeper; a line "..."
	// stands for those before.
	From string
}

// command writes the output of the run of the tool that Style.Commands
// names name=, from a go run of the tool in root: its standard output
// and standard error, from the line Command.From names.
func (s Style) command(w io.Writer, b Block, root string, lang report.Lang, shaped bool) error {
	c, ok := s.Commands[b.Attrs["name"]]
	if !ok {
		return fmt.Errorf("%s: no command named %q", b.Name(), b.Attrs["name"])
	}
	args := append([]string{"go", "run", "./cmd/" + s.Marker}, c.Args...)
	if lang != report.English {
		args = append(args[:3:3], append([]string{"-lang", string(lang)}, c.Args...)...)
	}
	out, err := runOnce(root, "", args)
	if err != nil {
		return fmt.Errorf("%s: %w", b.Name(), err)
	}
	var kept []string
	indent := -1
	for _, l := range strings.Split(out, "\n") {
		depth := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 {
			if strings.Contains(l, c.From) {
				indent, kept = depth, []string{l}
			}
			continue
		}
		if strings.TrimSpace(l) == "" || depth <= indent {
			break
		}
		kept = append(kept, l)
	}
	if indent < 0 {
		return fmt.Errorf("%s: no line of its output has %q:\n%s", b.Name(), c.From, out)
	}
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = a
		if strings.ContainsAny(a, " ;'") {
			shown[i] = `"` + a + `"`
		}
	}
	fmt.Fprintf(w, "```text\n$ %s\n...\n", strings.Join(shown, " "))
	for _, l := range kept {
		if shaped {
			for _, m := range goTestMasks {
				l = m.re.ReplaceAllString(l, m.with)
			}
		}
		fmt.Fprintln(w, l)
	}
	fmt.Fprint(w, "```\n")
	return nil
}
