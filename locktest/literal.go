package locktest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Describe says in one line what it means that a lock breaks p, for
// example for SafeRelease "a release sent after the holder's TTL ran out
// freed the next holder's lock". It returns "" for an unknown property.
func Describe(p Property) string {
	if d, ok := lookup(p); ok {
		return d.breaks
	}
	return ""
}

// goName returns the Go expression that names p: locktest.CrashMidAcquire
// for "crash-mid-acquire", the constant named by p's words; a property
// that AllProperties does not list is written as a conversion.
func goName(p Property) string {
	if !slices.Contains(AllProperties(), p) {
		return "locktest.Property(" + strconv.Quote(string(p)) + ")"
	}
	var b strings.Builder
	b.WriteString("locktest.")
	for w := range strings.SplitSeq(string(p), "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// GoString returns e as the Go literal that declares it, formatted as
// gofmt would, with a comment above each break saying what it means; %#v
// prints it. It is Literal(nil).
func (e Expect) GoString() string { return e.Literal(nil) }

// Literal returns e as the Go literal that declares it, formatted as gofmt
// would, ready to paste into a test that imports locktest. Each break has
// a comment line above it: what the break means (Describe) and, after a
// semicolon, notes[p] when there is one, such as the subtest that holds
// its counterexample. NotApplicable goes on one line.
func (e Expect) Literal(notes map[Property]string) string {
	var b strings.Builder
	b.WriteString("locktest.Expect{")
	if len(e.Breaks) == 0 && len(e.NotApplicable) == 0 && !e.Strict {
		b.WriteString("}")
		return b.String()
	}
	b.WriteString("\n")
	if len(e.Breaks) > 0 {
		b.WriteString("\tBreaks: []locktest.Property{\n")
		for _, p := range e.Breaks {
			comment := Describe(p)
			if n := notes[p]; n != "" {
				if comment != "" {
					comment += "; "
				}
				comment += n
			}
			if comment != "" {
				fmt.Fprintf(&b, "\t\t// %s\n", comment)
			}
			fmt.Fprintf(&b, "\t\t%s,\n", goName(p))
		}
		b.WriteString("\t},\n")
	}
	// gofmt aligns the values of NotApplicable and Strict when both are
	// there, on consecutive lines.
	pad := func(key string) string {
		if len(e.NotApplicable) > 0 && e.Strict {
			return key + ":" + strings.Repeat(" ", len("NotApplicable")-len(key)+1)
		}
		return key + ": "
	}
	if len(e.NotApplicable) > 0 {
		names := make([]string, len(e.NotApplicable))
		for i, p := range e.NotApplicable {
			names[i] = goName(p)
		}
		fmt.Fprintf(&b, "\t%s[]locktest.Property{%s},\n", pad("NotApplicable"), strings.Join(names, ", "))
	}
	if e.Strict {
		fmt.Fprintf(&b, "\t%strue,\n", pad("Strict"))
	}
	b.WriteString("}")
	return b.String()
}
