// Package msg is what the suite says, as data: a message is an identifier
// and typed arguments. Its English template is declared with it (Define),
// beside the code that says it; every other language is a catalog of
// templates keyed by the identifier, one file per language under
// catalogs/. Nothing reads a rendered message back.
//
// A template writes argument i as {i}; {i|one|other} is the word for a
// count, one when argument i is 1 and other otherwise. A nested message,
// and the words an argument renders with (an operation, an ordinal, the
// server, a list), render in the template's language.
package msg

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Lang is a language: English, the language the messages are declared
// in, or the name of a catalog (see Langs).
type Lang string

// English is the source language: each message's English template is
// declared beside the code that says it (Define).
const English Lang = "en"

// Kind says what an argument is, and so how it renders.
type Kind string

// The kinds of arguments.
const (
	Client   Kind = "client"   // a simulated client's name, as it is
	Duration Kind = "duration" // a time.Duration, as %v prints it
	Count    Kind = "count"    // an integer
	Text     Kind = "text"     // a text left as it is: an error, a command's name
	Node     Kind = "node"     // a master's name; "" is the one server
	Nodes    Kind = "nodes"    // masters by name, as a list
	Clients  Kind = "clients"  // clients by name, as a list
	Op       Kind = "op"       // an operation: acquire, release, refresh, second release
	Ordinal  Kind = "ordinal"  // a position: first, second...
	Sub      Kind = "msg"      // a nested message
	Value    Kind = "value"    // a value of the timeline (the key, a time, a token)
)

// Arg is one typed argument of a message.
type Arg struct {
	Kind  Kind     `json:"kind"`
	Text  string   `json:"text,omitempty"`  // client, text, node, op; a value's text
	N     int64    `json:"n,omitempty"`     // count, ordinal; a duration in ns
	List  []string `json:"list,omitempty"`  // nodes, clients
	Msg   *Msg     `json:"msg,omitempty"`   // a nested message
	Value string   `json:"value,omitempty"` // a value's kind (key, time, token, digest, text)
	Owner string   `json:"owner,omitempty"` // a token's writer
	Ms    int64    `json:"ms,omitempty"`    // a time's distance from t0
}

// Msg is one message: an identifier of the catalogs and its arguments.
type Msg struct {
	ID   string `json:"id"`
	Args []Arg  `json:"args,omitempty"`
}

// IsZero reports whether m is no message.
func (m Msg) IsZero() bool { return m.ID == "" }

// String is m in English.
func (m Msg) String() string { return Render(English, m) }

// Def is a message's declaration: its identifier, the kinds of its
// arguments, and its English template; the other languages' templates are
// in their catalogs, keyed by the identifier.
type Def struct {
	ID      string
	Kinds   []Kind
	English string
}

var defs = map[string]*Def{}

// Define declares a message with its English template. An identifier is
// declared once.
func Define(id string, kinds []Kind, en string) *Def {
	if _, dup := defs[id]; dup {
		panic("msg: " + id + " declared twice")
	}
	d := &Def{ID: id, Kinds: kinds, English: en}
	defs[id] = d
	return d
}

// Defs returns every declared message.
func Defs() map[string]*Def { return defs }

// Template returns d's template in lang, and whether lang's catalog has
// one; a language without one falls back on the English.
func (d *Def) Template(lang Lang) (string, bool) {
	if lang == English || lang == "" {
		return d.English, true
	}
	t, ok := catalogs[lang][d.ID]
	if !ok {
		return d.English, false
	}
	return t, true
}

// K is shorthand for a list of kinds.
func K(kinds ...Kind) []Kind { return kinds }

// New returns the message d with args, each converted to the kind d
// declares for it: a string for a client, text, node or op; an int for a
// count or ordinal; a time.Duration; a []string for nodes; a Msg; an Arg
// as it is. It panics when args do not fit d.
func (d *Def) New(args ...any) Msg {
	if len(args) != len(d.Kinds) {
		panic(fmt.Sprintf("msg: %s takes %d arguments, got %d", d.ID, len(d.Kinds), len(args)))
	}
	m := Msg{ID: d.ID}
	for i, v := range args {
		a, ok := convert(d.Kinds[i], v)
		if !ok {
			panic(fmt.Sprintf("msg: %s: argument %d is a %s, got %T", d.ID, i, d.Kinds[i], v))
		}
		m.Args = append(m.Args, a)
	}
	return m
}

// Lacking is New less its last argument, which another layer gives
// later: a judge adds what it found to a promise's reason.
func (d *Def) Lacking(args ...any) Msg {
	if len(d.Kinds) == 0 {
		panic(fmt.Sprintf("msg: %s takes no arguments", d.ID))
	}
	short := *d
	short.Kinds = d.Kinds[:len(d.Kinds)-1]
	return short.New(args...)
}

func convert(k Kind, v any) (Arg, bool) {
	if a, ok := v.(Arg); ok {
		return a, a.Kind == k
	}
	switch k {
	case Client, Text, Node, Op:
		s, ok := v.(string)
		return Arg{Kind: k, Text: s}, ok
	case Count, Ordinal:
		switch n := v.(type) {
		case int:
			return Arg{Kind: k, N: int64(n)}, true
		case int64:
			return Arg{Kind: k, N: n}, true
		}
		return Arg{}, false
	case Duration:
		d, ok := v.(time.Duration)
		return Arg{Kind: k, N: int64(d)}, ok
	case Nodes, Clients:
		l, ok := v.([]string)
		return Arg{Kind: k, List: l}, ok
	case Sub:
		m, ok := v.(Msg)
		return Arg{Kind: k, Msg: &m}, ok
	}
	return Arg{}, false
}

// Printer renders messages in a language; Value, when not nil, draws the
// values of the timeline (a diagram names tokens its own way).
type Printer struct {
	Lang  Lang
	Value func(Arg) string
}

// Render returns m in lang.
func Render(lang Lang, m Msg) string { return Printer{Lang: lang}.Render(m) }

// Render returns m in p's language, with a space where a Chinese
// character and a letter or digit touch (see Space).
func (p Printer) Render(m Msg) string { return Space(p.render(m)) }

func (p Printer) render(m Msg) string {
	d := defs[m.ID]
	if d == nil {
		return m.ID // not declared: Check fails first
	}
	tmpl, _ := d.Template(p.Lang)
	var b strings.Builder
	for _, piece := range parse(tmpl) {
		if piece.arg < 0 {
			b.WriteString(piece.text)
			continue
		}
		if piece.arg >= len(m.Args) {
			b.WriteString("{?}")
			continue
		}
		a := m.Args[piece.arg]
		if piece.forms != nil {
			if a.N == 1 || len(a.List) == 1 {
				b.WriteString(piece.forms[0])
			} else {
				b.WriteString(piece.forms[1])
			}
			continue
		}
		b.WriteString(p.arg(a))
	}
	return b.String()
}

// The words an argument renders with, in each language's catalog.
var (
	mServer   = Define("arg.server", nil, "the server")
	mList     = Define("arg.list", K(Text, Text), "{0}, {1}")
	mOrdinalN = Define("arg.ordinal", K(Count), "{0}th")
	ordinals  = []*Def{
		Define("arg.ordinal-1", nil, "first"),
		Define("arg.ordinal-2", nil, "second"),
		Define("arg.ordinal-3", nil, "third"),
		Define("arg.ordinal-4", nil, "fourth"),
		Define("arg.ordinal-5", nil, "fifth"),
	}
	ops = map[string]*Def{
		"acquire":        Define("arg.op-acquire", nil, "acquire"),
		"release":        Define("arg.op-release", nil, "release"),
		"refresh":        Define("arg.op-refresh", nil, "refresh"),
		"second release": Define("arg.op-second-release", nil, "second release"),
	}
)

// arg renders one argument.
func (p Printer) arg(a Arg) string {
	switch a.Kind {
	case Duration:
		return time.Duration(a.N).String()
	case Count:
		return fmt.Sprint(a.N)
	case Node:
		if a.Text == "" {
			return p.render(mServer.New())
		}
		return a.Text
	case Nodes, Clients:
		if len(a.List) == 0 {
			return ""
		}
		s := a.List[0]
		for _, e := range a.List[1:] {
			s = p.render(mList.New(s, e))
		}
		return s
	case Op:
		if d := ops[a.Text]; d != nil {
			return p.render(d.New())
		}
		return a.Text
	case Ordinal:
		if a.N >= 1 && int(a.N) <= len(ordinals) {
			return p.render(ordinals[a.N-1].New())
		}
		return p.render(mOrdinalN.New(a.N))
	case Sub:
		if a.Msg == nil {
			return ""
		}
		return p.render(*a.Msg)
	case Value:
		if p.Value != nil {
			return p.Value(a)
		}
		switch a.Value {
		case "key":
			return "K"
		case "time":
			return fmt.Sprintf("t0%+dms", a.Ms)
		}
		return a.Text
	}
	return a.Text
}

// Ops are the operations an Op argument names.
func Ops() []string { return []string{"acquire", "release", "refresh", "second release"} }

// piece is literal text, or argument arg (with forms, a count's word).
type piece struct {
	text  string
	arg   int
	forms []string
}

// parse splits a template into its pieces; a malformed placeholder is
// literal text, which TestCatalogs reports.
func parse(t string) []piece {
	var out []piece
	for t != "" {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}') + max(i, 0)
		if i < 0 || j < i {
			out = append(out, piece{text: t, arg: -1})
			break
		}
		if i > 0 {
			out = append(out, piece{text: t[:i], arg: -1})
		}
		ph := strings.Split(t[i+1:j], "|")
		var n int
		if _, err := fmt.Sscanf(ph[0], "%d", &n); err != nil || fmt.Sprint(n) != ph[0] || (len(ph) != 1 && len(ph) != 3) {
			out = append(out, piece{text: t[i : j+1], arg: -1})
		} else {
			p := piece{arg: n}
			if len(ph) == 3 {
				p.forms = ph[1:]
			}
			out = append(out, p)
		}
		t = t[j+1:]
	}
	return out
}

// Check reports what is wrong with d: a language whose catalog has no
// template for it, a placeholder that is not one or names no argument, a
// count's word on an argument that is not a count, an argument the
// English leaves out.
func (d *Def) Check() []string {
	var errs []string
	for _, l := range Langs() {
		t, ok := d.Template(l)
		if !ok || t == "" {
			errs = append(errs, fmt.Sprintf("%s: no %s template", d.ID, l))
			continue
		}
		used := make([]bool, len(d.Kinds))
		for _, p := range parse(t) {
			switch {
			case p.arg < 0:
				if strings.ContainsAny(p.text, "{}") {
					errs = append(errs, fmt.Sprintf("%s (%s): malformed placeholder in %q", d.ID, l, p.text))
				}
			case p.arg >= len(d.Kinds):
				errs = append(errs, fmt.Sprintf("%s (%s): {%d} but %d arguments", d.ID, l, p.arg, len(d.Kinds)))
			case p.forms != nil && d.Kinds[p.arg] != Count && d.Kinds[p.arg] != Nodes && d.Kinds[p.arg] != Clients:
				errs = append(errs, fmt.Sprintf("%s (%s): plural of {%d}, a %s", d.ID, l, p.arg, d.Kinds[p.arg]))
			case p.forms == nil:
				used[p.arg] = true
			}
		}
		if l == English {
			for i, u := range used {
				if !u {
					errs = append(errs, fmt.Sprintf("%s (%s): argument %d unused", d.ID, l, i))
				}
			}
		}
	}
	return errs
}

// Check reports what is wrong with the messages and the catalogs: each
// message's faults (Def.Check), a catalog that could not be read, and a
// catalog's template for a message nobody declares.
func Check() []string {
	errs := slices.Clone(loadErrs)
	for _, d := range defs {
		errs = append(errs, d.Check()...)
	}
	for l, c := range catalogs {
		for id := range c {
			if defs[id] == nil {
				errs = append(errs, fmt.Sprintf("the %s catalog has %s, which no message declares", l, id))
			}
		}
	}
	slices.Sort(errs)
	return errs
}

// Space puts a space between a Chinese character and a letter or digit
// that touch, as Chinese technical writing does: "在 t0+60ms 时", not
// "在t0+60ms时". The templates have their spaces; this adds those that
// fall where an argument meets the template.
func Space(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, c := range rs {
		if i > 0 && (han(rs[i-1]) && latin(c) || latin(rs[i-1]) && han(c)) {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func han(c rune) bool { return unicode.Is(unicode.Han, c) }

func latin(c rune) bool { return c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)) }
