package docblock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/report"
)

// The words of the blocks that show a program's output, and of the table
// of properties.
var (
	mJSONExcerpt = msg.Define("docblock.json-excerpt", msg.K(msg.Text, msg.Count),
		"The output of `{0}`, each timeline cut to its first {1} events and its last:")
	mColProperty = msg.Define("docblock.col-property", nil, "property")
	mColScenario = msg.Define("docblock.col-scenario", nil, "the scenario")
	mColMust     = msg.Define("docblock.col-must", nil, "what must hold")
)

// output writes what the tool prints for the checks b names, as its
// marker asks: format=text (standard output only: the progress lines on
// standard error are left out, as the command line shown says) or
// format=json; strategy=a,b and property=p,q select the checks (all of
// the run's by default); trace=yes adds the diagrams; lang=zh writes the
// output in another language than the page's; events=N keeps, of
// each timeline of a JSON sample, the first N events and the last.
// With shaped, what changes from run to run is written as placeholders.
func (s Style) output(w io.Writer, b Block, rep *report.Report, lang report.Lang, shaped bool) error {
	sub, err := selectChecks(b, rep)
	if err != nil {
		return err
	}
	if l := b.Attrs["lang"]; l != "" {
		if lang, err = report.ParseLang(l); err != nil {
			return fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	trace := b.Attrs["trace"] == "yes"
	args := []string{"go run ./cmd/" + s.Marker}
	if lang != report.English {
		args = append(args, "-lang "+string(lang))
	}
	if trace {
		args = append(args, "-trace")
	}
	for _, k := range []string{"strategy", "property"} {
		if v := b.Attrs[k]; v != "" {
			args = append(args, "-"+k+" "+v)
		}
	}
	wr := report.Writer{Lang: lang, Trace: trace, Hint: true}
	if shaped {
		sub.RedisVersion, sub.When = "VERSION", time.Time{}
	}
	switch b.Attrs["format"] {
	case "text":
		fmt.Fprintf(w, "```text\n$ %s 2>/dev/null\n", strings.Join(args, " "))
		if shaped {
			// The diagrams' times and tokens differ between runs: the
			// shape takes them from report.Writer's Shape.
			shape := wr
			wr.Trace, shape.Shape = false, true
			wr.Write(w, sub)
			for _, r := range sub.Breaks() {
				if trace {
					fmt.Fprintf(w, "%s\n%s", shape.Reason(r), shape.Mermaid(r.Timeline))
				}
			}
		} else {
			wr.Write(w, sub)
		}
		fmt.Fprint(w, "```\n")
	case "json":
		events, err := strconv.Atoi(b.Attrs["events"])
		if err != nil || events < 1 {
			return fmt.Errorf("%s: events=%q: want the number of a timeline's first events to show", b.Name(), b.Attrs["events"])
		}
		args = append(args, "-format json")
		var raw bytes.Buffer
		wr.Format = report.JSON
		if err := wr.Write(&raw, sub); err != nil {
			return err
		}
		v, err := decode(json.NewDecoder(&raw))
		if err != nil {
			return err
		}
		v.excerpt(events, shaped)
		fmt.Fprintf(w, "%s\n\n```json\n", say(lang, mJSONExcerpt, strings.Join(args, " "), events))
		v.write(w, 0, false, "")
		fmt.Fprint(w, "\n```\n")
	default:
		return fmt.Errorf("%s: format=%q: want text or json", b.Name(), b.Attrs["format"])
	}
	return nil
}

// selectChecks returns rep with only the checks b's strategy= and
// property= name, in rep's order.
func selectChecks(b Block, rep *report.Report) (*report.Report, error) {
	sub := *rep
	sub.Results, sub.Changes = nil, nil
	names := func(k string) []string {
		if b.Attrs[k] == "" {
			return nil
		}
		return strings.Split(b.Attrs[k], ",")
	}
	strategies, props := names("strategy"), names("property")
	for _, r := range rep.Results {
		if (strategies == nil || slices.Contains(strategies, r.Strategy)) && (props == nil || slices.Contains(props, string(r.Property))) {
			sub.Results = append(sub.Results, r)
		}
	}
	if len(sub.Results) == 0 {
		return nil, fmt.Errorf("%s: no check of the run is named", b.Name())
	}
	return &sub, nil
}

// properties writes the table of the properties of b's kind, in the order the suite
// runs them: each one's scenario and what must hold, the messages
// PROPERTY.scenario and PROPERTY.must its file declares.
func properties(w io.Writer, b Block, lang report.Lang) error {
	k, err := blockKind(b)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| %s | %s | %s |\n|---|---|---|\n", say(lang, mColProperty), say(lang, mColScenario), say(lang, mColMust))
	for _, p := range kindProperties(k) {
		var cells []string
		for _, part := range []string{"scenario", "must"} {
			d := msg.Defs()[string(p)+"."+part]
			if d == nil {
				return fmt.Errorf("%s: property %s declares no message %s.%s", b.Name(), p, p, part)
			}
			cells = append(cells, strings.ReplaceAll(say(lang, d), "|", "\\|"))
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", p, cells[0], cells[1])
	}
	return nil
}

// value is a JSON value as it was written, its object keys in order.
type value struct {
	scalar json.RawMessage // a string, number, bool or null
	keys   []string        // an object's keys; nil for an array
	items  []*value        // an object's values, or an array's
	array  bool
}

func decode(d *json.Decoder) (*value, error) {
	d.UseNumber()
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'), json.Delim('['):
		v := &value{array: t == json.Delim('[')}
		for d.More() {
			if !v.array {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k.(string))
			}
			item, err := decode(d)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, item)
		}
		_, err := d.Token()
		return v, err
	}
	raw, err := json.Marshal(t)
	return &value{scalar: raw}, err
}

func (v *value) get(k string) *value {
	if i := slices.Index(v.keys, k); i >= 0 {
		return v.items[i]
	}
	return nil
}

// excerpt cuts each timeline to its first n events and its last; with
// shaped, it writes what changes between runs (times, keys, tokens, the
// date and the version) as placeholders.
func (v *value) excerpt(n int, shaped bool) {
	for i, item := range v.items {
		key := ""
		if !v.array {
			key = v.keys[i]
		}
		if key == "timeline" && item.array && len(item.items) > n+1 {
			item.items = append(item.items[:n:n], item.items[len(item.items)-1])
		}
		if shaped {
			switch key {
			case "at_ns", "call_ns", "sent_in_ns", "since_ns", "ms", "elapsed_ms", "start_unix_ms", "when", "redis_version", "key", "tokens":
				item.scalar, item.keys, item.items = json.RawMessage(`"X"`), nil, nil
				continue
			}
			if kind := v.get("kind"); key == "text" && kind != nil && slices.Contains([]string{`"key"`, `"token"`, `"time"`, `"digest"`, `"left"`, `"server"`}, string(kind.scalar)) {
				item.scalar = json.RawMessage(`"X"`)
			}
		}
		item.excerpt(n, shaped)
	}
}

// write writes v as lockcheck's JSON reads best in a page: the report,
// its results and their timelines one item a line, anything deeper on
// the line of its item. key is v's name in its parent.
func (v *value) write(w io.Writer, indent int, flat bool, key string) {
	if v.scalar != nil {
		w.Write(v.scalar)
		return
	}
	open, end := "{", "}"
	if v.array {
		open, end = "[", "]"
	}
	if len(v.items) == 0 {
		fmt.Fprint(w, open+end)
		return
	}
	fmt.Fprint(w, open)
	for i, item := range v.items {
		if i > 0 {
			fmt.Fprint(w, ",")
			if flat {
				fmt.Fprint(w, " ")
			}
		}
		if !flat {
			fmt.Fprint(w, "\n"+strings.Repeat("  ", indent+1))
		}
		child := ""
		if !v.array {
			child = v.keys[i]
			fmt.Fprintf(w, "%q: ", child)
		}
		lines := child == "results" || child == "timeline" || child == "changed" || v.array && key == "results"
		item.write(w, indent+1, flat || !lines, child)
	}
	if !flat {
		fmt.Fprint(w, "\n"+strings.Repeat("  ", indent))
	}
	fmt.Fprint(w, end)
}
