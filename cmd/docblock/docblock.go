// Package docblock regenerates the generated blocks of Markdown files from
// a run of the conformance suite, for lockdocs, which writes them from
// runs of lockcheck and of peercheck: everything outside the blocks is
// left as it is. A block sits between two HTML comments, each at the
// start of a line, named after the tool whose run it shows (Style.Marker):
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
//
// Rewrite writes a generated block's shape into its opening marker
// (shape=...): a digest of the block as Shape renders it, with what
// changes from run to run (times, retries, digests, the version and the
// date) written as placeholders by the renderers, which know each value's
// type. A block whose shape has not changed is left as it is, so that
// regenerating the docs changes only what a change of the code changed.
package docblock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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

// Parse finds the generated blocks of a file.
func (s Style) Parse(src string) ([]Block, error) {
	var out []Block
	var open *Block
	markers := 0
	for at := 0; at < len(src); {
		end := strings.IndexByte(src[at:], '\n')
		next := len(src)
		if end >= 0 {
			end += at
			next = end + 1
		} else {
			end = len(src)
		}
		line, start := src[at:end], at
		at = next
		if !strings.HasPrefix(line, "<!-- "+s.Marker+":") && !strings.HasPrefix(line, "<!-- /"+s.Marker+":") {
			continue
		}
		markers++
		kind, attrs, closing, ok := s.marker(line)
		switch {
		case !ok || (!closing && attrs == nil):
			// Malformed: counted, and so reported below.
		case closing && open == nil:
			return nil, fmt.Errorf("<!-- /%s:%s --> closes no block", s.Marker, kind)
		case closing && kind != open.Kind:
			return nil, fmt.Errorf("%s is closed by <!-- /%s:%s -->", open.Name(), s.Marker, kind)
		case closing:
			open.Body, open.To = src[open.From:start], start
			out = append(out, *open)
			open = nil
		case open != nil:
			return nil, fmt.Errorf("%s is not closed before %s", open.Name(), line)
		default:
			open = &Block{Kind: kind, Attrs: attrs, Open: line, From: next}
		}
	}
	if open != nil || markers != 2*len(out) {
		return nil, fmt.Errorf("%d %s markers, but only %d well-formed blocks: "+
			"a block is <!-- %s:KIND key=value ... --> on its own line, the text, then <!-- /%s:KIND -->", markers, s.Marker, len(out), s.Marker, s.Marker)
	}
	return out, nil
}

// marker reads a line that is a whole marker: its kind, its attributes
// (nil for a malformed opening), and whether it closes a block.
func (s Style) marker(line string) (kind string, attrs map[string]string, closing, ok bool) {
	rest, found := strings.CutPrefix(line, "<!-- ")
	if !found {
		return "", nil, false, false
	}
	rest, found = strings.CutSuffix(rest, " -->")
	if !found {
		return "", nil, false, false
	}
	rest, closing = strings.CutPrefix(rest, "/")
	rest, found = strings.CutPrefix(rest, s.Marker+":")
	if !found {
		return "", nil, false, false
	}
	fields := strings.Split(rest, " ")
	kind = fields[0]
	if !word(kind, false) {
		return "", nil, false, false
	}
	if closing {
		return kind, nil, true, len(fields) == 1
	}
	attrs = map[string]string{}
	for _, f := range fields[1:] {
		k, v, found := strings.Cut(f, "=")
		if !found || !word(k, false) || !word(v, true) {
			return kind, nil, false, true
		}
		attrs[k] = v
	}
	return kind, attrs, false, true
}

// word reports whether s is a marker's kind or key (lower-case letters)
// or, with value, an attribute's value (letters, digits, _ . / -).
func word(s string, value bool) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
		case value && (c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./-", c)):
		default:
			return false
		}
	}
	return true
}

// Generate returns the text of block b from rep, in lang; the files that
// source blocks quote are found under root.
func (s Style) Generate(b Block, rep *report.Report, root string, lang report.Lang) (string, error) {
	return s.generate(b, rep, root, lang, false)
}

// Shape returns block b as Generate would, with what changes from one run
// to the next written as placeholders (see report.Shape), and the digest
// of that text that Rewrite writes into the block's marker.
func (s Style) Shape(b Block, rep *report.Report, root string, lang report.Lang) (text, digest string, err error) {
	text, err = s.generate(b, rep, root, lang, true)
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256([]byte(text))
	return text, hex.EncodeToString(sum[:6]), nil
}

func (s Style) generate(b Block, rep *report.Report, root string, lang report.Lang, shaped bool) (string, error) {
	var w bytes.Buffer
	words := s.Words[lang]
	shape := report.Shape{Lang: lang}
	switch b.Kind {
	case "matrix":
		lang.MarkdownTable(&w, rep)
		var scales bytes.Buffer
		if lang.Scales(&scales, rep); scales.Len() > 0 {
			fmt.Fprintf(&w, "\n%s", scales.String())
		}
		if mism := rep.Mismatches(); len(mism) > 0 {
			fmt.Fprintf(&w, words.Mismatches, len(mism))
		}
		version, date := rep.RedisVersion, rep.When.UTC().Format("2006-01-02")
		if shaped {
			version, date = "VERSION", "DATE"
		}
		fmt.Fprintf(&w, words.Generated, version, date)
	case "verdicts":
		st := b.Attrs["strategy"]
		if !slices.Contains(rep.Strategies(), st) {
			return "", fmt.Errorf("%s: no strategy %q in the run", b.Name(), st)
		}
		if shaped {
			shape.Verdicts(&w, rep, st)
		} else {
			lang.Verdicts(&w, rep, st)
		}
	case "trace":
		st, p := b.Attrs["strategy"], locktest.Property(b.Attrs["property"])
		r, ok := rep.Lookup(st, p)
		switch {
		case !ok:
			return "", fmt.Errorf("%s: no result for strategy %q and property %q", b.Name(), st, p)
		case r.Outcome() != locktest.Breaks:
			return "", fmt.Errorf("%s: %s %s, there is nothing to trace", b.Name(), r.Outcome(), p)
		}
		if shaped {
			fmt.Fprintf(&w, words.Trace, st, p, lang.Sentence(shape.Reason(r)), shape.Mermaid(r.Timeline))
		} else {
			fmt.Fprintf(&w, words.Trace, st, p, lang.Sentence(lang.Reason(r)), lang.Mermaid(r.Timeline))
		}
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

// UpToDate reports whether Rewrite would leave block b as it is: a source
// block whose text is the file's, any other whose shape is this run's. It
// also returns what it compared: the source's text, or the block's shape
// in this run.
func (s Style) UpToDate(b Block, rep *report.Report, root string, lang report.Lang) (bool, string, error) {
	if b.Kind == "source" {
		text, err := s.Generate(b, rep, root, lang)
		return err == nil && text == b.Body, text, err
	}
	text, digest, err := s.Shape(b, rep, root, lang)
	return err == nil && digest == b.Attrs["shape"], text, err
}

// Rewrite returns src with every generated block regenerated from rep, in
// lang. A block whose shape has not changed is left as it is (a source
// block: whose text has not changed); any other gets its new text and its
// new shape in its marker.
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
		open := b.Open
		if b.Kind != "source" {
			_, digest, err := s.Shape(b, rep, root, lang)
			if err != nil {
				return "", err
			}
			if b.Attrs["shape"] == digest {
				text = b.Body
			}
			open = withShape(b.Open, digest)
		}
		out.WriteString(src[last : b.From-len(b.Open)-1])
		out.WriteString(open + "\n")
		out.WriteString(text)
		last = b.To
	}
	out.WriteString(src[last:])
	return out.String(), nil
}

// withShape returns the opening marker open with shape=digest as its last
// attribute, in place of any it had.
func withShape(open, digest string) string {
	fields := strings.Fields(strings.TrimSuffix(open, " -->"))
	fields = slices.DeleteFunc(fields, func(f string) bool { return strings.HasPrefix(f, "shape=") })
	return strings.Join(append(fields, "shape="+digest), " ") + " -->"
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
