package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/locktest"
)

// Mermaid renders a timeline as a Mermaid sequence diagram, ending with a
// newline:
//
//   - the participants are the clients (A, B, C, ... in name order) and
//     Redis, on the right;
//   - a command is an arrow from its client to Redis, its reply a dashed
//     arrow back;
//   - clock readings, lock calls returning, crashes, the critical section
//     (enter, leave, overlap) and the scenario's notes are notes over the
//     client, or over everyone; a client inside the critical section is
//     also shown active;
//   - a run of identical consecutive events, or of identical groups of
//     events such as a waiter's retries, is drawn once inside a loop
//     labelled ×N with the time it spanned; values that change from one
//     repetition to the next read first…last;
//   - the run's lock key reads K, and the random tokens of a token lock read
//     tokA, tokB, ... after the client that first sent them (tokA2 for A's
//     second); a token that is new on every repetition reads (new token).
//     A token is an xid (locklab's locks), or a word of 16 random bytes in
//     base64, unpadded base64url or hexadecimal, or of crypto/rand.Text's
//     26 base32 characters (the values of redsync, redislock, redis-py,
//     the PHP recipes and hand-written locks).
//
// Characters that Mermaid would misread (; # " < >) are written as
// entity codes. Lang.Mermaid draws the same diagram with its texts in
// another language.
func Mermaid(tl []locktest.Event) string { return English.tr().mermaid(tl) }

func (t tr) mermaid(tl []locktest.Event) string {
	m := &mermaid{tr: t}
	m.start(tl)
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	for _, p := range m.participants {
		fmt.Fprintf(&b, "    participant %s\n", p)
	}
	for _, l := range m.body(collapse(m.normalize(tl))) {
		b.WriteString("    ")
		b.WriteString(strings.Repeat("    ", l.depth))
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// redis is the server's participant name.
const redis = "Redis"

// maxGroup is the longest group of events that collapse looks for.
const maxGroup = 6

var (
	openingNote = regexp.MustCompile(`^t0 = \d+ \(Unix ms\); K = (.+)$`)
	stampRE     = regexp.MustCompile(`t0[+-]\d+ms`)
	shaRE       = regexp.MustCompile(`\b([0-9a-f]{7})[0-9a-f]{33}\b`)
	// xidRE is a token of locklab's locks: an xid.
	xidRE = regexp.MustCompile(`\b[0-9a-v]{20}\b`)
	// wordRE is a run of the characters that other locks' tokens are
	// written with (base64, base64url, base32, hexadecimal), and
	// otherTokenRE such a run that is one: 16 random bytes in base64
	// (redsync), in unpadded base64url (redislock) or in hexadecimal (a
	// uuid's hex: redis-py, the PHP recipes), or the text of
	// crypto/rand.Text.
	wordRE       = regexp.MustCompile(`[A-Za-z0-9+/=_-]+`)
	otherTokenRE = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{22}==|[A-Za-z0-9_-]{22}|[A-Z2-7]{26}|[0-9a-f]{32})$`)
	// newTokenRE is two words joined by merge: a token that was new on
	// every repetition when both are tokens.
	newTokenRE = regexp.MustCompile(`[A-Za-z0-9+/=_-]+…[A-Za-z0-9+/=_-]+`)
)

// replaceTokens returns s with every random token replaced by what f
// returns for it: an xid wherever it stands, another token as a whole
// word.
func replaceTokens(s string, f func(tok string) string) string {
	s = xidRE.ReplaceAllStringFunc(s, f)
	return wordRE.ReplaceAllStringFunc(s, func(w string) string {
		if otherTokenRE.MatchString(w) {
			return f(w)
		}
		return w
	})
}

// isToken reports whether the word w is a random token.
func isToken(w string) bool {
	return otherTokenRE.MatchString(w) || len(w) == 20 && xidRE.MatchString(w)
}

// newTokens replaces, in a statement merged from the first and last
// repetitions, each token that differed between them by with.
func newTokens(s, with string) string {
	return newTokenRE.ReplaceAllStringFunc(s, func(m string) string {
		a, b, _ := strings.Cut(m, "…")
		if isToken(a) && isToken(b) {
			return with
		}
		return m
	})
}

type mermaid struct {
	tr           tr
	key          string
	participants []string
	active       map[string]bool
}

// start reads the run's key from the opening note and lists the clients.
func (m *mermaid) start(tl []locktest.Event) {
	m.active = map[string]bool{}
	for _, e := range tl {
		if e.Kind == locktest.EvNote && m.key == "" {
			if sub := openingNote.FindStringSubmatch(e.Text); sub != nil {
				m.key = sub[1]
			}
		}
		if e.Client != "" && !slices.Contains(m.participants, e.Client) {
			m.participants = append(m.participants, e.Client)
		}
	}
	slices.Sort(m.participants)
	m.participants = append(m.participants, redis)
}

// normalize writes the run's key as K wherever it shows (error messages
// quote it), except in the opening note that defines K.
func (m *mermaid) normalize(tl []locktest.Event) []locktest.Event {
	if m.key == "" {
		return tl
	}
	out := make([]locktest.Event, len(tl))
	for i, e := range tl {
		if !(e.Kind == locktest.EvNote && openingNote.MatchString(e.Text)) {
			e.Err = m.unkey(e.Err)
			e.Text = m.unkey(e.Text)
			e.Reply = m.unkey(e.Reply)
		}
		out[i] = e
	}
	return out
}

func (m *mermaid) unkey(s string) string {
	s = strings.ReplaceAll(s, `"`+m.key+`"`, "K")
	return strings.ReplaceAll(s, m.key, "K")
}

// group is a block of events seen reps times in a row.
type group struct {
	events [][]locktest.Event // one slice per repetition
}

// signature is what must be equal for two events to count as the same:
// everything but the time, the timestamps and the random tokens.
func signature(e locktest.Event) string {
	mask := func(s string) string {
		return replaceTokens(stampRE.ReplaceAllString(s, "t0~"), func(string) string { return "tok~" })
	}
	return strings.Join([]string{string(e.Kind), e.Client, mask(strings.Join(e.Command, " ")),
		mask(e.Reply), mask(e.Err), mask(e.Text)}, "\x00")
}

// collapse cuts the timeline into groups: at each point it takes the block
// of up to maxGroup events that repeats to cover the most events (the
// shortest on a tie), or the single event when nothing repeats.
func collapse(tl []locktest.Event) []group {
	sigs := make([]string, len(tl))
	for i, e := range tl {
		sigs[i] = signature(e)
	}
	same := func(i, j, k int) bool { return slices.Equal(sigs[i:i+k], sigs[j:j+k]) }
	var out []group
	for i := 0; i < len(tl); {
		bestK, bestReps := 1, 1
		for k := 1; k <= maxGroup && i+2*k <= len(tl); k++ {
			reps := 1
			for i+(reps+1)*k <= len(tl) && same(i, i+reps*k, k) {
				reps++
			}
			if reps >= 2 && k*reps > bestK*bestReps {
				bestK, bestReps = k, reps
			}
		}
		g := group{}
		for r := range bestReps {
			g.events = append(g.events, tl[i+r*bestK:i+(r+1)*bestK])
		}
		out = append(out, g)
		i += bestK * bestReps
	}
	return out
}

// line is one statement of the diagram.
type line struct {
	depth  int
	client string // whose token a token in text is, when first seen
	text   string
}

// body renders the groups, then names the tokens.
func (m *mermaid) body(groups []group) []line {
	var out []line
	for _, g := range groups {
		first := g.events[0]
		if len(g.events) == 1 {
			for _, e := range first {
				out = append(out, m.event(e, 0)...)
			}
			continue
		}
		last := g.events[len(g.events)-1]
		from, to := first[0].At, last[len(last)-1].At
		out = append(out, line{text: fmt.Sprintf("loop ×%d (%s–%s)", len(g.events), ms(from), ms(to))})
		for j := range first {
			a, b := m.event(first[j], 1), m.event(last[j], 1)
			if len(a) != len(b) {
				out = append(out, a...)
				continue
			}
			for k := range a {
				a[k].text = merge(a[k].text, b[k].text)
				a[k].text = newTokens(a[k].text, m.tr.msg().newToken)
			}
			out = append(out, a...)
		}
		out = append(out, line{text: "end"})
	}
	nameTokens(out, m.key)
	return out
}

// event renders one event as statements at depth.
func (m *mermaid) event(e locktest.Event, depth int) []line {
	c := e.Client
	l := func(format string, args ...any) line {
		return line{depth: depth, client: c, text: fmt.Sprintf(format, args...)}
	}
	// note writes text as it is: what the strategy's errors say; say
	// translates the suite's own sentence text.
	note := func(text string) line { return l("Note over %s: %s", c, escape(text)) }
	say := func(text string) line { return note(m.tr.text(text)) }
	words := m.tr.msg()
	switch e.Kind {
	case locktest.EvCommand:
		cmd := shaRE.ReplaceAllString(strings.Join(e.Command, " "), "$1…")
		if e.Reply == "(sent)" { // pipelined: the reply comes with a later Receive
			return []line{l("%s->>%s: %s%s", c, redis, escape(cmd), words.pipelined)}
		}
		reply := e.Reply
		if reply == "" {
			reply = `""`
		}
		if e.Err != "" {
			reply = words.errorReply + e.Err
		}
		return []line{l("%s->>%s: %s", c, redis, escape(cmd)), l("%s-->>%s: %s", redis, c, escape(reply))}
	case locktest.EvClock:
		return []line{say(e.Text)}
	case locktest.EvAcquired:
		return []line{say(e.Reply)}
	case locktest.EvReleased:
		if e.Err != "" {
			return []line{note(words.releaseFailed + e.Err)}
		}
		return []line{say(e.Reply)}
	case locktest.EvRefreshed:
		if e.Err != "" {
			return []line{note(words.refreshFailed + e.Err)}
		}
		return []line{say(e.Reply)}
	case locktest.EvEnter:
		out := []line{say(e.Text)}
		if !m.active[c] {
			m.active[c] = true
			out = append(out, l("activate %s", c))
		}
		return out
	case locktest.EvLeave:
		var out []line
		if m.active[c] {
			m.active[c] = false
			out = append(out, l("deactivate %s", c))
		}
		return append(out, say(e.Text))
	case locktest.EvOverlap:
		return []line{l("Note over %s: %s%s", m.span(c, e.Text), words.overlap, escape(m.tr.text(e.Text)))}
	case locktest.EvCrash:
		return []line{say(e.Text)}
	}
	text := e.Text
	if text == "" {
		text = string(e.Kind)
	} else {
		text = m.tr.text(text)
	}
	if c != "" {
		return []line{note(text)}
	}
	return []line{l("Note over %s: %s", m.span("", ""), escape(text))}
}

// span returns the participants a note spans: from the leftmost to the
// rightmost of client and the clients named in text, or over everyone
// when client is "".
func (m *mermaid) span(client, text string) string {
	if client == "" {
		if len(m.participants) == 1 {
			return redis
		}
		return m.participants[0] + "," + redis
	}
	lo, hi := len(m.participants), -1
	words := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == ':' })
	for i, p := range m.participants[:len(m.participants)-1] {
		if p == client || slices.Contains(words, p) {
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	if lo == hi {
		return m.participants[lo]
	}
	return m.participants[lo] + "," + m.participants[hi]
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

// nameTokens replaces each random token by tok and the client that first
// sent it: tokA, then tokA2 for A's second. The run's key, which holds an
// xid of its own, is left alone.
func nameTokens(lines []line, key string) {
	names := map[string]string{}
	count := map[string]int{}
	for i := range lines {
		var parts []string
		if key != "" {
			parts = strings.Split(lines[i].text, key)
		} else {
			parts = []string{lines[i].text}
		}
		for j := range parts {
			parts[j] = replaceTokens(parts[j], func(tok string) string {
				if n, ok := names[tok]; ok {
					return n
				}
				owner := lines[i].client
				if owner == "" {
					owner = "X"
				}
				count[owner]++
				n := "tok" + owner
				if count[owner] > 1 {
					n += fmt.Sprint(count[owner])
				}
				names[tok] = n
				return n
			})
		}
		lines[i].text = strings.Join(parts, key)
	}
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

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
