// Package docblock regenerates the generated blocks of Markdown files from
// a run of the conformance suite, for lockcheck -docs and for the peers'
// command: everything outside the blocks is left as it is. A block sits
// between two HTML comments, each at the start of a line, named after the
// tool that writes it (Style.Marker):
//
//	<!-- lockcheck:matrix --> ... <!-- /lockcheck:matrix -->
//		the verdict matrix, with the Redis version and date of the run;
//	<!-- lockcheck:verdicts strategy=getset --> ... <!-- /lockcheck:verdicts -->
//		one strategy's verdicts, with the suite's reason for each;
//	<!-- lockcheck:trace strategy=getset property=clock-skew --> ... <!-- /lockcheck:trace -->
//		the counterexample of that break, as a Mermaid diagram;
//	<!-- lockcheck:source file=strategy/getset/getset.go func=takeover --> ... <!-- /lockcheck:source -->
//		a code block quoting a file, or one Go function or method
//		(func=Type.Method) of it, so that quoted code stays current.
//
// A marker elsewhere in a line, quoted in text, is left alone.
package docblock

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
)

// Words are the words a Style writes around the generated text, in one
// language: fmt formats.
type Words struct {
	// Mismatches says how many verdicts are not the declared ones (%d).
	Mismatches string
	// Generated closes a matrix: the Redis version and the date of the run
	// (%s, %s).
	Generated string
	// Trace introduces a diagram: strategy, property, reason, diagram.
	Trace string
}

// Style is the blocks of one tool: the name in their markers, and its
// words in each language.
type Style struct {
	// Marker names the blocks: "lockcheck" for <!-- lockcheck:KIND ... -->.
	Marker string
	Words  map[report.Lang]Words
}

// Block is one generated block of a file.
type Block struct {
	Kind  string            // matrix, verdicts, trace or source
	Attrs map[string]string // strategy=..., property=..., file=..., func=...
	Open  string            // the opening comment, as written
	// Body is the generated text; From and To delimit it in the file.
	Body     string
	From, To int
}

// Name identifies the block in messages.
func (b Block) Name() string { return strings.TrimSuffix(strings.TrimPrefix(b.Open, "<!-- "), " -->") }

var attrRE = regexp.MustCompile(`([a-z]+)=([A-Za-z0-9_./-]+)`)

// Parse finds the generated blocks of a file.
func (s Style) Parse(src string) ([]Block, error) {
	m := regexp.QuoteMeta(s.Marker)
	blockRE := regexp.MustCompile(`(?ms)^<!-- ` + m + `:([a-z]+)((?: +[a-z]+=[A-Za-z0-9_./-]+)*) -->\n(.*?)^<!-- /` + m + `:([a-z]+) -->`)
	markerRE := regexp.MustCompile(`(?m)^<!-- /?` + m + `:`)
	var out []Block
	for _, m := range blockRE.FindAllStringSubmatchIndex(src, -1) {
		b := Block{
			Kind:  src[m[2]:m[3]],
			Attrs: map[string]string{},
			Open:  src[m[0] : m[5]+len(" -->")],
			Body:  src[m[6]:m[7]],
			From:  m[6],
			To:    m[7],
		}
		if closing := src[m[8]:m[9]]; closing != b.Kind {
			return nil, fmt.Errorf("%s is closed by <!-- /%s:%s -->", b.Name(), s.Marker, closing)
		}
		for _, a := range attrRE.FindAllStringSubmatch(src[m[4]:m[5]], -1) {
			b.Attrs[a[1]] = a[2]
		}
		out = append(out, b)
	}
	if n := len(markerRE.FindAllStringIndex(src, -1)); n != 2*len(out) {
		return nil, fmt.Errorf("%d %s markers, but only %d well-formed blocks: "+
			"a block is <!-- %s:KIND key=value ... --> on its own line, the text, then <!-- /%s:KIND -->", n, s.Marker, len(out), s.Marker, s.Marker)
	}
	return out, nil
}

// Generate returns the text of block b from rep, in lang; the files that
// source blocks quote are found under root.
func (s Style) Generate(b Block, rep *report.Report, root string, lang report.Lang) (string, error) {
	var w bytes.Buffer
	words := s.Words[lang]
	switch b.Kind {
	case "matrix":
		lang.MarkdownTable(&w, rep)
		if mism := rep.Mismatches(); len(mism) > 0 {
			fmt.Fprintf(&w, words.Mismatches, len(mism))
		}
		fmt.Fprintf(&w, words.Generated, rep.RedisVersion, rep.When.UTC().Format("2006-01-02"))
	case "verdicts":
		st := b.Attrs["strategy"]
		if !slices.Contains(rep.Strategies(), st) {
			return "", fmt.Errorf("%s: no strategy %q in the run", b.Name(), st)
		}
		lang.Verdicts(&w, rep, st)
	case "trace":
		st, p := b.Attrs["strategy"], locktest.Property(b.Attrs["property"])
		r, ok := rep.Lookup(st, p)
		switch {
		case !ok:
			return "", fmt.Errorf("%s: no result for strategy %q and property %q", b.Name(), st, p)
		case r.Outcome() != locktest.Breaks:
			return "", fmt.Errorf("%s: %s %s, there is nothing to trace", b.Name(), r.Outcome(), p)
		}
		fmt.Fprintf(&w, words.Trace, st, p, lang.Sentence(lang.Reason(r)), lang.Mermaid(r.Timeline))
	case "source":
		text, lang, err := Quote(root, b.Attrs["file"], b.Attrs["func"])
		if err != nil {
			return "", fmt.Errorf("%s: %w", b.Name(), err)
		}
		fmt.Fprintf(&w, "```%s\n%s\n```\n", lang, text)
	default:
		return "", fmt.Errorf("%s: unknown kind %q (want matrix, verdicts, trace or source)", b.Name(), b.Kind)
	}
	return w.String(), nil
}

// Rewrite returns src with every generated block regenerated from rep, in
// lang. A block whose canonical form has not changed is left as it is, so
// that regenerating the docs changes only what a change of the code
// changed, not every time and key in them.
func (s Style) Rewrite(src string, rep *report.Report, root string, lang report.Lang) (string, error) {
	blocks, err := s.Parse(src)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	last := 0
	for _, b := range blocks {
		text, err := s.Generate(b, rep, root, lang)
		if err != nil {
			return "", err
		}
		if Canonical(text) == Canonical(b.Body) {
			text = b.Body
		}
		out.WriteString(src[last:b.From])
		out.WriteString(text)
		last = b.To
	}
	out.WriteString(src[last:])
	return out.String(), nil
}

// Quote returns the text of file, or of its Go function (or method, as
// Type.Method) named fn with its doc comment, and the language to mark the
// code block with.
func Quote(root, file, fn string) (text, lang string, err error) {
	if file == "" {
		return "", "", errors.New("no file=")
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return "", "", err
	}
	lang = strings.TrimPrefix(filepath.Ext(file), ".")
	if fn == "" {
		return strings.TrimRight(string(src), "\n"), lang, nil
	}
	if lang != "go" {
		return "", "", fmt.Errorf("func=%s: only Go files have functions to quote", fn)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", "", err
	}
	typ, name, isMethod := strings.Cut(fn, ".")
	if !isMethod {
		typ, name = "", fn
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name || receiver(fd) != typ {
			continue
		}
		start := fd.Pos()
		if fd.Doc != nil {
			start = fd.Doc.Pos()
		}
		return string(src[fset.Position(start).Offset:fset.Position(fd.End()).Offset]), lang, nil
	}
	return "", "", fmt.Errorf("%s has no func %s", file, fn)
}

// receiver returns the name of fd's receiver type, or "" for a function.
func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// What changes from one run to the next, and how Canonical reads it.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`t0[+-]\d+ms`), "t0±Δ"},
	{regexp.MustCompile(`t0±Δ…t0±Δ`), "t0±Δ"},
	{regexp.MustCompile(`×\d+ \([0-9.]+ms–[0-9.]+ms\)`), "×N"},
	{regexp.MustCompile(`EVALSHA [0-9a-f]{7}…`), "EVALSHA SHA"},
	// The time a key has left, when it has some, counts down as the run
	// goes: a millisecond more or less is the same run. (-1 and -2 stay.)
	{regexp.MustCompile(`(->>Redis: P?TTL K\n +Redis-->>[A-Z]: )[1-9][0-9]*`), "${1}LEFT"},
	{regexp.MustCompile(`(reads PTTL K: |读取 PTTL K：)[1-9][0-9]*`), "${1}LEFT"},
	// A client library's HELLO is answered with the server's version and
	// the connection's id.
	{regexp.MustCompile(`(\{server: [^}]*\bversion: )[^,}]+`), "${1}VERSION"},
	{regexp.MustCompile(`(\{server: [^}]*\bid: )\d+`), "${1}ID"},
	{regexp.MustCompile(`on Redis [^ ,]+, \d{4}-\d\d-\d\d\.`), "on Redis VERSION, DATE."},
	{regexp.MustCompile(`在 Redis [^ ,]+ 上运行于 \d{4}-\d\d-\d\d。`), "在 Redis VERSION 上运行于 DATE。"},
}

// clockLine is a clock reading in a diagram. Readings that clients take
// before the scheduler gates their first command happen in either order.
var clockLine = regexp.MustCompile(`^ *Note over [A-Z]: (?:now|时钟读数) = `)

// Canonical rewrites a generated block so that two runs that did the same
// things read the same: the times, the number of retries, the script's
// SHA-1, the Redis version and the date are masked, and clock readings in
// a row are sorted. What is left is the structure: which client sent which
// command, what came back, in which order. The diagrams hold nothing else
// that changes from run to run: they never show the run's key or t0, and
// they draw a waiter's failed attempts the same whichever of them met the
// key expiring (see report.Mermaid), so one run of each break is enough.
func Canonical(s string) string {
	for _, m := range masks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && clockLine.MatchString(lines[j]) {
			j++
		}
		if j > i {
			slices.Sort(lines[i:j])
			i = j
		} else {
			i++
		}
	}
	return strings.Join(lines, "\n")
}
