package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/history"

	"github.com/locklab/locklab/internal/msg"
)

// mermaid is the diagram of tl (see Writer.Mermaid).
func (t tr) mermaid(tl []history.Event) string { return t.diagram(tl, escape) }

// plainMermaid is the diagram as text output prints it, for a reader
// rather than for Mermaid: its texts as they are, each on one line.
func (t tr) plainMermaid(tl []history.Event) string { return t.diagram(tl, oneLine) }

// diagram draws tl, writing each text of it with esc.
func (t tr) diagram(tl []history.Event, esc func(string) string) string {
	m, steps := t.walk(tl)
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	for _, p := range m.participants {
		fmt.Fprintf(&b, "    participant %s\n", p)
	}
	for _, l := range steps {
		b.WriteString("    ")
		b.WriteString(strings.Repeat("    ", l.depth))
		b.WriteString(l.mermaid(esc))
		b.WriteByte('\n')
	}
	return b.String()
}

// walk reads tl as every diagram draws it (Mermaid's, the SVG of HTML
// output): its participants, and its statements in order.
func (t tr) walk(tl []history.Event) (*mermaid, []line) {
	m := &mermaid{tr: t, active: map[string]bool{}, names: map[string]string{}, count: map[string]int{}}
	tl = fanOut(tl)
	if t.shape {
		tl = clocksInOrder(tl)
	}
	m.start(tl)
	return m, m.body(history.Fold(tl))
}

// redis is the server's participant name.
const redis = "Redis"

type mermaid struct {
	tr           tr
	participants []string // the clients, then the servers
	servers      int      // how many of participants are servers
	active       map[string]bool
	names        map[string]string // a token (its client, NUL, its text): its name
	count        map[string]int    // tokens named after each client so far
}

// start lists the clients.
func (m *mermaid) start(tl []history.Event) {
	for _, e := range tl {
		if e.Client != "" && !slices.Contains(m.participants, e.Client) {
			m.participants = append(m.participants, e.Client)
		}
	}
	slices.Sort(m.participants)
	// A lock over several masters: one participant for each master its
	// commands went to (Event.Node), in order; else one, Redis.
	var nodes []string
	for _, e := range tl {
		if e.Node != "" && !slices.Contains(nodes, e.Node) {
			nodes = append(nodes, e.Node)
		}
	}
	slices.Sort(nodes)
	if len(nodes) == 0 {
		nodes = []string{redis}
	}
	m.participants = append(m.participants, nodes...)
	m.servers = len(nodes)
}

// fanOut returns tl with each fan-out in the order of its masters: a run
// of one client's commands, each to another master, that a lock over
// several sends at once and whose replies come back in whatever order the
// machine gives. Drawn in the masters' order, the diagram is the same on
// every run.
func fanOut(tl []history.Event) []history.Event {
	out := slices.Clone(tl)
	for i := 0; i < len(out); {
		j := i + 1
		if out[i].Kind == history.EvCommand && out[i].Node != "" {
			seen := map[string]bool{out[i].Node: true}
			for j < len(out) && out[j].Kind == history.EvCommand && out[j].Client == out[i].Client &&
				out[j].Node != "" && !seen[out[j].Node] {
				seen[out[j].Node] = true
				j++
			}
			slices.SortStableFunc(out[i:j], func(a, b history.Event) int { return strings.Compare(a.Node, b.Node) })
		}
		i = j
	}
	return out
}

// clocksInOrder returns tl with each run of clock readings in a row in
// the order of the clients that took them.
func clocksInOrder(tl []history.Event) []history.Event {
	out := slices.Clone(tl)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].Kind == history.EvClock {
			j++
		}
		if j > i {
			slices.SortStableFunc(out[i:j], func(a, b history.Event) int { return strings.Compare(a.Client, b.Client) })
			i = j
		} else {
			i++
		}
	}
	return out
}

// server returns the participant a command went to.
func server(e history.Event) string {
	if e.Node != "" {
		return e.Node
	}
	return redis
}

// line is one statement of a diagram, whatever draws it.
type line struct {
	depth int
	kind  lineKind
	// from and to are an arrow's ends, or the participants a note spans
	// (to is "" over one); activate and deactivate name from.
	from, to string
	text     string // what an arrow or a note says, a loop's label
	overlap  bool   // a note of two clients inside at once
}

// lineKind says what a line draws.
type lineKind int

const (
	lineCall       lineKind = iota // an arrow from a client to a server
	lineReply                      // a dashed arrow back
	lineNote                       // a note over from (to from...to)
	lineActivate                   // from is inside the critical section
	lineDeactivate                 // from left it
	lineLoop                       // a loop labelled text, until lineEnd
	lineEnd
)

// mermaid writes l in Mermaid's syntax, its text written with esc.
func (l line) mermaid(esc func(string) string) string {
	switch l.kind {
	case lineCall:
		return fmt.Sprintf("%s->>%s: %s", l.from, l.to, esc(l.text))
	case lineReply:
		return fmt.Sprintf("%s-->>%s: %s", l.from, l.to, esc(l.text))
	case lineNote:
		over := l.from
		if l.to != "" {
			over += "," + l.to
		}
		return fmt.Sprintf("Note over %s: %s", over, esc(l.text))
	case lineActivate:
		return "activate " + l.from
	case lineDeactivate:
		return "deactivate " + l.from
	case lineLoop:
		return "loop " + l.text
	}
	return "end"
}

// body renders the groups.
func (m *mermaid) body(groups []history.Repeat) []line {
	var out []line
	for _, g := range groups {
		if len(g.Events) == 1 {
			for _, e := range g.Events[0] {
				out = append(out, m.event(e, nil, 0)...)
			}
			continue
		}
		first, last := g.Events[g.First], g.Events[g.Last]
		end := g.Events[len(g.Events)-1]
		from, to := g.Events[0][0].At, end[len(end)-1].At
		head := fmt.Sprintf("×%d (%s–%s)", len(g.Events), ms(from), ms(to))
		if m.tr.shape {
			head = "×N"
		}
		out = append(out, line{kind: lineLoop, text: head})
		for j := range first {
			var other *history.Event
			if g.Last != g.First {
				other = &last[j]
			}
			out = append(out, m.event(first[j], other, 1)...)
		}
		out = append(out, line{kind: lineEnd})
	}
	return out
}

// value draws one value.
func (m *mermaid) value(a history.Arg) string {
	switch a.Kind {
	case history.ArgTime, history.ArgLeft, history.ArgServer, history.ArgKey:
		return m.tr.shapeValue(a)
	case history.ArgDigest:
		if m.tr.shape {
			return m.tr.shapeValue(a)
		}
		if r := []rune(a.Text); len(r) > 7 {
			return string(r[:7]) + "…"
		}
		return a.Text
	case history.ArgToken:
		k := a.Client + "\x00" + a.Text
		if n, ok := m.names[k]; ok {
			return n
		}
		owner := a.Client
		if owner == "" {
			owner = "X"
		}
		m.count[owner]++
		n := "tok" + owner
		if m.count[owner] > 1 {
			n += fmt.Sprint(m.count[owner])
		}
		m.names[k] = n
		return n
	}
	return a.Text
}

// show draws args joined by sep; with other, the same values in the last
// repetition of a loop, the values that differ read first…last, and a
// token that differs reads (new token).
func (m *mermaid) show(args, other []history.Arg, sep string) string {
	if len(other) != len(args) {
		other = nil
	}
	parts := make([]string, len(args))
	for i, a := range args {
		switch {
		case other == nil || other[i] == a:
			parts[i] = m.value(a)
		case a.Kind == other[i].Kind && a.Kind != history.ArgToken && m.value(a) == m.value(other[i]):
			parts[i] = m.value(a)
		case a.Kind == history.ArgToken && other[i].Kind == history.ArgToken:
			parts[i] = m.tr.say(mNewToken)
		case a.Kind == history.ArgText && other[i].Kind == history.ArgText:
			parts[i] = merge(a.Text, other[i].Text)
		default:
			parts[i] = m.value(a) + "…" + m.value(other[i])
		}
	}
	return strings.Join(parts, sep)
}

// event renders one event as statements at depth; other, when not nil, is
// the same event in the last repetition of a loop.
func (m *mermaid) event(e history.Event, other *history.Event, depth int) []line {
	c := e.Client
	l := func(kind lineKind, from, to, text string) line {
		return line{depth: depth, kind: kind, from: from, to: to, text: text}
	}
	// texts returns what f makes of e and of other, merged.
	texts := func(f func(e history.Event) string) string {
		a := f(e)
		if other == nil {
			return a
		}
		return merge(a, f(*other))
	}
	// note writes text as it is: what the strategy's errors say; say
	// writes what e says (its message) in the diagram's language.
	note := func(text string) line { return l(lineNote, c, "", text) }
	said := func(e history.Event) string {
		if e.Msg == nil {
			return string(e.Kind)
		}
		return m.tr.render(*e.Msg, m.value)
	}
	errText := func(e history.Event) string { return e.Err }
	switch e.Kind {
	case history.EvCommand:
		var oc, or []history.Arg
		if other != nil {
			oc, or = other.Command, other.Reply
		}
		cmd := m.show(e.Command, oc, " ")
		var r string
		switch {
		case e.Err != "":
			r = m.tr.say(mErrorReply, texts(errText))
		case e.Msg != nil:
			r = m.tr.say(mErrorReply, texts(said))
		default:
			r = m.show(e.Reply, or, "")
		}
		if r == "" {
			r = `""`
		}
		srv := server(e)
		return []line{l(lineCall, c, srv, cmd), l(lineReply, srv, c, r)}
	case history.EvPush:
		return []line{l(lineReply, server(e), c, m.tr.say(mPush, m.show(e.Reply, nil, "")))}
	case history.EvAcquired, history.EvReleased, history.EvRefreshed:
		if e.Err != "" {
			return []line{note(m.tr.say(mFailed[e.Kind], texts(errText)))}
		}
		return []line{note(texts(said))}
	case history.EvEnter:
		out := []line{note(texts(said))}
		if !m.active[c] {
			m.active[c] = true
			out = append(out, l(lineActivate, c, "", ""))
		}
		return out
	case history.EvLeave:
		var out []line
		if m.active[c] {
			m.active[c] = false
			out = append(out, l(lineDeactivate, c, "", ""))
		}
		return append(out, note(texts(said)))
	case history.EvOverlap:
		var who []string
		if e.Msg != nil {
			for _, a := range e.Msg.Args {
				if a.Kind == msg.Clients {
					who = append(who, a.List...)
				}
			}
		}
		from, to := m.span(c, who)
		n := l(lineNote, from, to, m.tr.say(mOverlap, texts(said)))
		n.overlap = true
		return []line{n}
	}
	if c != "" {
		return []line{note(texts(said))}
	}
	from, to := m.span("", nil)
	return []line{l(lineNote, from, to, texts(said))}
}

// span returns the participants a note spans: from the leftmost to the
// rightmost of client and the clients in who, or over everyone when
// client is ""; to is "" when the note is over one.
func (m *mermaid) span(client string, who []string) (from, to string) {
	if client == "" {
		last := m.participants[len(m.participants)-1]
		if len(m.participants) == 1 {
			return last, ""
		}
		return m.participants[0], last
	}
	lo, hi := len(m.participants), -1
	for i, p := range m.participants[:len(m.participants)-m.servers] {
		if p == client || slices.Contains(who, p) {
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	if lo == hi {
		return m.participants[lo], ""
	}
	return m.participants[lo], m.participants[hi]
}

// merge joins two renderings of the same statement, word by word: the words
// that differ read first…last.
func merge(a, b string) string {
	if a == b {
		return a
	}
	wa, wb := strings.Split(a, " "), strings.Split(b, " ")
	if len(wa) != len(wb) {
		return a
	}
	for i := range wa {
		if wa[i] != wb[i] {
			wa[i] += "…" + wb[i]
		}
	}
	return strings.Join(wa, " ")
}

// escape writes the characters Mermaid would misread as entity codes.
func escape(s string) string {
	r := strings.NewReplacer(
		"#", "#35;",
		";", "#59;",
		`"`, "#quot;",
		"<", "#lt;",
		">", "#gt;",
		"\n", " ",
		"\r", " ",
	)
	return r.Replace(s)
}

// oneLine keeps s on one line, and otherwise as it is.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
