// Package msg is what the suite says, as data: a message is an identifier
// and typed arguments, and each language is a catalog of templates keyed
// by the identifier. Nothing reads a rendered message back.
//
// A template writes argument i as {i}; {i|one|other} is the English word
// for a count, one when argument i is 1 and other otherwise. A nested
// message renders in the template's language.
package msg

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Lang is a language of the catalogs.
type Lang string

// The languages.
const (
	English Lang = "en"
	Chinese Lang = "zh"
)

// Langs returns the languages, English first.
func Langs() []Lang { return []Lang{English, Chinese} }

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
// arguments, and its template in each language.
type Def struct {
	ID    string
	Kinds []Kind
	Tmpl  map[Lang]string
}

var defs = map[string]*Def{}

// Define declares a message with its English and Chinese templates. An
// identifier is declared once.
func Define(id string, kinds []Kind, en, zh string) *Def {
	if _, dup := defs[id]; dup {
		panic("msg: " + id + " declared twice")
	}
	d := &Def{ID: id, Kinds: kinds, Tmpl: map[Lang]string{English: en, Chinese: zh}}
	defs[id] = d
	return d
}

// Defs returns every declared message.
func Defs() map[string]*Def { return defs }

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

// Render returns m in p's language.
func (p Printer) Render(m Msg) string {
	s := p.render(m)
	if p.Lang == Chinese {
		s = Space(s)
	}
	return s
}

func (p Printer) render(m Msg) string {
	d := defs[m.ID]
	if d == nil {
		return m.ID // not declared: TestCatalogs fails first
	}
	var b strings.Builder
	for _, piece := range parse(d.Tmpl[p.Lang]) {
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

// arg renders one argument.
func (p Printer) arg(a Arg) string {
	zh := p.Lang == Chinese
	switch a.Kind {
	case Duration:
		return time.Duration(a.N).String()
	case Count:
		return fmt.Sprint(a.N)
	case Node:
		if a.Text == "" {
			if zh {
				return "服务器"
			}
			return "the server"
		}
		return a.Text
	case Nodes, Clients:
		if zh {
			return strings.Join(a.List, "、")
		}
		return strings.Join(a.List, ", ")
	case Op:
		if zh {
			return opZh[a.Text]
		}
		return a.Text
	case Ordinal:
		if zh {
			if a.N >= 1 && a.N <= 5 {
				return "第" + "一二三四五"[3*(a.N-1):3*a.N]
			}
			return fmt.Sprintf("第 %d", a.N)
		}
		if names := []string{"first", "second", "third", "fourth", "fifth"}; a.N >= 1 && a.N <= 5 {
			return names[a.N-1]
		}
		return fmt.Sprintf("%dth", a.N)
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

var opZh = map[string]string{
	"acquire":        "加锁",
	"release":        "释放",
	"refresh":        "续期",
	"second release": "第二次释放",
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

// Check reports what is wrong with d: a language without a template, a
// placeholder that is not one or names no argument, a count's word on an
// argument that is not a count, an argument the English leaves out.
func (d *Def) Check() []string {
	var errs []string
	for _, l := range Langs() {
		t := d.Tmpl[l]
		if t == "" {
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
