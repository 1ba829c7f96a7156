package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const key = "lockcheck:d4qk1n9ksdu8h2v0a3pg:luatoken:holder-overrun"

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// cmd is a command whose values are all text, as the suite records a
// value it does not know: the key (here K's own text), a time, a token.
func cmd(at float64, client, reply string, args ...string) history.Event {
	e := history.Event{At: ms(at), Client: client, Kind: history.EvCommand}
	for _, a := range args {
		e.Command = append(e.Command, txt(a))
	}
	if reply != "" {
		e.Reply = []history.Arg{txt(reply)}
	}
	return e
}

// message is the suite's message id with args, as msg.Def.New makes it;
// it panics when id is not declared or args do not fit it.
func message(id string, args ...any) *locktest.Message {
	d := msg.Defs()[id]
	if d == nil {
		panic("no message " + id)
	}
	m := d.New(args...)
	return &m
}

// val is a value of the timeline as a message's argument.
func val(a history.Arg) msg.Arg {
	return msg.Arg{Kind: msg.Value, Value: string(a.Kind), Text: a.Text, Owner: a.Client, Ms: a.Ms}
}

// ev is an event that says m.
func ev(at float64, client string, kind history.EventKind, m *locktest.Message) history.Event {
	return history.Event{At: ms(at), Client: client, Kind: kind, Msg: m}
}

// The typed values of a timeline, as the suite records them.
func txt(s string) history.Arg { return history.Arg{Kind: history.ArgText, Text: s} }
func num(s string) history.Arg { return history.Arg{Kind: history.ArgNumber, Text: s} }
func tok(client, s string) history.Arg {
	return history.Arg{Kind: history.ArgToken, Text: s, Client: client}
}
func dig(s string) history.Arg { return history.Arg{Kind: history.ArgDigest, Text: s} }
func stamp(t0, ms int64) history.Arg {
	return history.Arg{Kind: history.ArgTime, Text: fmt.Sprint(t0 + ms), Ms: ms}
}

var keyArg = history.Arg{Kind: history.ArgKey, Text: key}

// typed is a command with its values typed.
func typed(at float64, client string, reply []history.Arg, args ...history.Arg) history.Event {
	return history.Event{At: ms(at), Client: client, Kind: history.EvCommand, Command: args, Reply: reply}
}

func reply(args ...history.Arg) []history.Arg { return args }

// outcome is a lock call's event, or the critical section's (enter,
// leave), with the message the suite's recorder gives it: event.<kind>.
func outcome(at float64, client string, kind history.EventKind) history.Event {
	return ev(at, client, kind, message("event."+string(kind)))
}

func overlap(at float64, who, inside string) history.Event {
	return ev(at, who, history.EvOverlap, message("overlap", who, []string{inside}))
}

// lockTimeline is a holder-overrun timeline of a token lock that writes
// its tokens with toks (A's first, then each of B's attempts), releases
// with the script of digest sha, and sets with setArgs.
func lockTimeline(toks []string, sha string) []history.Event {
	set := func(at float64, c, tk, ttl string, r history.Arg) history.Event {
		return typed(at, c, reply(r), txt("SET"), keyArg, tok(c, tk), txt("NX"), txt("PX"), num(ttl))
	}
	tl := []history.Event{
		set(0.1, "A", toks[0], "60", txt("OK")),
		outcome(0.1, "A", history.EvAcquired),
		outcome(0.1, "A", history.EvEnter),
		ev(0.1, "", history.EvNote, message("late.works", 60*time.Millisecond, 560*time.Millisecond)),
	}
	last := len(toks) - 1
	for i, tk := range toks[1:last] {
		tl = append(tl, set(0.2+5*float64(i), "B", tk, "5000", txt("(nil)")), outcome(0.2+5*float64(i), "B", history.EvNotAcquired))
	}
	return append(tl,
		set(60.5, "B", toks[last], "5000", txt("OK")),
		outcome(60.5, "B", history.EvAcquired),
		outcome(60.5, "B", history.EvEnter),
		overlap(60.5, "B", "A"),
		outcome(60.6, "B", history.EvLeave),
		typed(60.6, "B", reply(num("1")), txt("EVALSHA"), dig(sha), num("1"), keyArg, tok("B", toks[last])),
		outcome(60.6, "B", history.EvReleased),
		outcome(60.7, "A", history.EvLeave),
		typed(60.7, "A", reply(num("0")), txt("EVALSHA"), dig(sha), num("1"), keyArg, tok("A", toks[0])),
		history.Event{At: ms(60.7), Client: "A", Kind: history.EvReleased, Err: "luatoken: release K: locklab: lock not held"},
	)
}

// overrun is luatoken's holder-overrun timeline, shortened.
func overrun() []history.Event {
	return lockTimeline([]string{"dc13591ksdu9l73uo0d0", "dc13591ksdu9l73uo0d1", "dc13591ksdu9l73uo0d2", "dc13591ksdu9l73uo0d3", "dc13591ksdu9l73uo0d4"},
		"74c117a56a246dabd130625dd4e9574d072be8a6")
}

// overrunDiagram is the diagram of lockTimeline, whatever its tokens.
const overrunDiagram = `sequenceDiagram
    participant A
    participant B
    participant Redis
    A->>Redis: SET K tokA NX PX 60
    Redis-->>A: OK
    Note over A: lock acquired
    Note over A: enters the critical section
    activate A
    Note over A,Redis: A keeps working past its TTL (60ms)#59; B waits up to 560ms
    loop ×3 (0.2ms–10.2ms)
        B->>Redis: SET K (new token) NX PX 5000
        Redis-->>B: (nil)
        Note over B: not acquired
    end
    B->>Redis: SET K tokB NX PX 5000
    Redis-->>B: OK
    Note over B: lock acquired
    Note over B: enters the critical section
    activate B
    Note over A,B: overlap: B entered while A was inside
    deactivate B
    Note over B: leaves the critical section
    B->>Redis: EVALSHA 74c117a… 1 K tokB
    Redis-->>B: 1
    Note over B: released
    deactivate A
    Note over A: leaves the critical section
    A->>Redis: EVALSHA 74c117a… 1 K tokA
    Redis-->>A: 0
    Note over A: release failed: luatoken: release K: locklab: lock not held
`

func TestMermaid(t *testing.T) {
	assert.Equal(t, overrunDiagram, report.Writer{}.Mermaid(overrun()))
}

// TestMermaidAnyTokens: a lock from outside the project draws as cleanly
// as luatoken, whatever its tokens look like (a uuid's hex as redis-py
// writes, 16 bytes in base64 as redsync, unpadded base64url as redislock,
// crypto/rand.Text, a counter, a word) and whatever its script's digest:
// the renderer reads what the suite typed, not the text.
func TestMermaidAnyTokens(t *testing.T) {
	for _, toks := range [][]string{
		{"6a025fcce74111f1b9e402fc00000001", "6a03342ee74111f19a5e02fc00000001", "6a04a228e74111f19a5e02fc00000001", "6a0594bce74111f19a5e02fc00000001", "6a0594bce74111f19a5e02fc00000002"},
		{"/ihKpkJSek+PXSDZqbl5/w==", "kdHUvJpRNQ020b4qPpk2fw==", "G24//RoIPz1sMIgsOAFncQ==", "JGfrdeTlCkYZF8R8dvD38A==", "JGfrdeTlCkYZF8R8dvD38B=="},
		{"74nPwwXPv6H3tSut8yca6g", "Ab-_cdEFghIJklMNopQRst", "0123456789abcdefABCDEF", "zz_zz-zz_zz-zz_zz-zz_z", "zz_zz-zz_zz-zz_zz-zz_y"},
		{"ZQL4XHY7HYTVBMFNGZBHAVWJ3K", "AAAAAAAAAAAAAAAAAAAAAAAAA2", "QRSTUVWXYZ234567QRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXY2"},
		{"host-1:pid-7:a", "host-2:pid-9:a", "host-2:pid-9:b", "host-2:pid-9:c", "host-2:pid-9:d"},
		{"x", "y1", "y2", "y3", "y4"},
	} {
		assert.Equal(t, overrunDiagram, report.Writer{}.Mermaid(lockTimeline(toks, "74c117a56a246dabd130625dd4e9574d072be8a6")), toks[0])
	}
	// A digest of another script reads its first 7 digits, whatever it is.
	assert.Contains(t, report.Writer{}.Mermaid(lockTimeline([]string{"a", "b", "c", "d", "e"}, "c3f8721be2e1d6c6fca8e9a1d8a1e1c3b5f0a6d2")),
		"A->>Redis: EVALSHA c3f8721… 1 K tokA\n")
}

// TestMermaidUntypedText: what the suite did not type as a token, a key
// or a time is drawn as it is, even when it looks like one: the renderer
// does not guess.
func TestMermaidUntypedText(t *testing.T) {
	tl := []history.Event{
		typed(0, "A", reply(txt("OK")), txt("SET"), keyArg, txt("dc13591ksdu9l73uo0d0"), txt("PX"), num("60")),
		typed(1, "B", reply(txt("OK")), txt("SET"), txt("other-key"), txt("6a025fcce74111f1b9e402fc00000001"), txt("t0+5ms")),
		cmd(2, "A", "1795306148871", "GET", key),
	}
	got := report.Writer{}.Mermaid(tl)
	assert.Contains(t, got, "A->>Redis: SET K dc13591ksdu9l73uo0d0 PX 60\n")
	assert.Contains(t, got, "B->>Redis: SET other-key 6a025fcce74111f1b9e402fc00000001 t0+5ms\n")
	assert.Contains(t, got, "A->>Redis: GET "+key+"\n    Redis-->>A: 1795306148871\n", "values typed as text are drawn as they are, the key too")
}

// TestMermaidGroups: a repeated group of events collapses into one loop,
// and the values that change read first…last.
func TestMermaidGroups(t *testing.T) {
	const t0 = 1795306148871
	var tl []history.Event
	for i, now := range []int64{0, 5, 11, 16} {
		at := float64(5 * i)
		tl = append(tl,
			ev(at, "B", history.EvClock, message("event.clock", val(stamp(t0, now)))),
			typed(at, "B", reply(num("0")), txt("SETNX"), keyArg, stamp(t0, 5000+now)),
			typed(at, "B", reply(stamp(t0, 60)), txt("GET"), keyArg))
	}
	tl = append(tl, typed(21, "B", reply(stamp(t0, 60)), txt("GETSET"), keyArg, stamp(t0, 5021)))
	got := report.Writer{}.Mermaid(tl)
	assert.Contains(t, got, `    loop ×4 (0.0ms–15.0ms)
        Note over B: now = t0+0ms…t0+16ms
        B->>Redis: SETNX K t0+5000ms…t0+5016ms
        Redis-->>B: 0
        B->>Redis: GET K
        Redis-->>B: t0+60ms
    end
    B->>Redis: GETSET K t0+5021ms
`)
}

// TestMermaidAttempts: a waiter's failed attempts draw as one loop of the
// attempt most of them made, whichever attempt met the key expiring
// midway: two runs that differ only there draw the same diagram, but for
// the count and the times.
func TestMermaidAttempts(t *testing.T) {
	attempt := func(at float64, ttl string) []history.Event {
		out := []history.Event{
			typed(at, "B", reply(num("0")), txt("SETNX"), keyArg, num("1")),
			typed(at, "B", reply(num(ttl)), txt("TTL"), keyArg),
		}
		if ttl == "-2" { // the key expired between the two commands
			out = append(out, typed(at, "B", reply(num("0")), txt("PEXPIRE"), keyArg, num("5000")))
		}
		return append(out, outcome(at, "B", history.EvNotAcquired))
	}
	diagram := func(odd int, n int) string {
		tl := []history.Event{typed(0, "A", reply(num("1")), txt("SETNX"), keyArg, num("1"))}
		for i := range n {
			ttl := "0"
			if i == odd {
				ttl = "-2"
			}
			tl = append(tl, attempt(float64(1+5*i), ttl)...)
		}
		tl = append(tl, typed(70, "B", reply(num("1")), txt("SETNX"), keyArg, num("1")), outcome(70, "B", history.EvAcquired))
		return report.Writer{}.Mermaid(tl)
	}
	want := diagram(-1, 11)
	assert.Contains(t, want, `    loop ×11 (1.0ms–51.0ms)
        B->>Redis: SETNX K 1
        Redis-->>B: 0
        B->>Redis: TTL K
        Redis-->>B: 0
        Note over B: not acquired
    end
    B->>Redis: SETNX K 1
`)
	assert.Equal(t, want, diagram(10, 11), "the last attempt met the expiry")
	assert.Equal(t, want, diagram(4, 11), "one in the middle did")
	assert.Equal(t, strings.Replace(want, "×11 (1.0ms–51.0ms)", "×12 (1.0ms–56.0ms)", 1), diagram(11, 12))
	// Attempts that went otherwise before the first typical one are drawn.
	assert.Contains(t, diagram(0, 11), "    B->>Redis: PEXPIRE K 5000\n    Redis-->>B: 0\n    Note over B: not acquired\n    loop ×10 (6.0ms–51.0ms)\n")
}

func TestMermaidEscapes(t *testing.T) {
	tl := []history.Event{
		ev(0, "A", history.EvCrash, message("client.dies-after", 1, `SETNX; "quoted" <b>`)),
		cmd(0, "A", "", "GET", "K"),
		{Client: "A", Kind: history.EvCommand, Command: []history.Arg{txt("GET"), keyArg}, Err: "ERR x;y"},
	}
	got := report.Writer{}.Mermaid(tl)
	assert.Contains(t, got, "Note over A: dies right after its command #35;1 (SETNX#59; #quot;quoted#quot; #lt;b#gt;) returns\n")
	assert.Contains(t, got, "Redis-->>A: #quot;#quot;\n")
	assert.Contains(t, got, "Redis-->>A: error: ERR x#59;y\n")
	assert.NotContains(t, got, "loop", "events that differ do not collapse")

	// Text output prints the same diagram for a reader: nothing escaped.
	var b bytes.Buffer
	res := report.Result{Strategy: "s", Expected: locktest.Breaks}
	res.Property, res.Verdict, res.Message, res.Timeline = locktest.Exclusion, locktest.Breaks, *message("late.resumes"), tl
	require.NoError(t, report.Writer{Trace: true}.Write(&b, &report.Report{Results: []report.Result{res}}))
	assert.Contains(t, b.String(), "Note over A: dies right after its command #1 (SETNX; \"quoted\" <b>) returns\n")
	assert.Contains(t, b.String(), "Redis-->>A: error: ERR x;y\n")
	assert.NotContains(t, b.String(), "#59;")
}

func sample() *report.Report {
	r := func(s string, p locktest.Property, got, want locktest.Verdict) report.Result {
		res := report.Result{Strategy: s, Expected: want}
		res.Property, res.Verdict, res.Message = p, got, *message("late.resumes") // "A resumes"
		if got == locktest.Breaks {
			res.Timeline = overrun()
		}
		return res
	}
	return &report.Report{
		RedisVersion: "7.0.15",
		When:         time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Results: []report.Result{
			r("setnxpx", locktest.Exclusion, locktest.Holds, locktest.Holds),
			r("setnxpx", locktest.HolderOverrun, locktest.Breaks, locktest.Breaks),
			r("luatoken", locktest.Exclusion, locktest.Holds, locktest.Holds),
			r("luatoken", locktest.HolderOverrun, locktest.Holds, locktest.Breaks),
		},
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.Writer{}.Write(&b, sample()))
	assert.Equal(t, `Verdicts on Redis 7.0.15, 2026-11-22T10:00:00Z

property        setnxpx  luatoken
exclusion       holds    holds
holder-overrun  breaks   holds!

1 of 4 verdicts is not the declared one (marked !):
  luatoken / holder-overrun: holds, declared breaks: A resumes
`, b.String())
}

// TestTextWidth: a matrix wider than Writer.Width is printed in parts
// that fit, the property column in each; one that fits, as it is.
func TestTextWidth(t *testing.T) {
	text := func(width int) string {
		var b bytes.Buffer
		require.NoError(t, report.Writer{Width: width}.Write(&b, sample()))
		return b.String()
	}
	whole := "property        setnxpx  luatoken\nexclusion       holds    holds\nholder-overrun  breaks   holds!\n\n"
	assert.Contains(t, text(0), whole)
	assert.Contains(t, text(33), whole, "33 columns fit the matrix")
	parts := "property        setnxpx\nexclusion       holds\nholder-overrun  breaks\n\n" +
		"property        luatoken\nexclusion       holds\nholder-overrun  holds!\n\n1 of 4"
	assert.Contains(t, text(32), parts)
	assert.Contains(t, text(5), parts, "each part has one strategy at least")
}

// TestTextHint: with Hint, a matrix with a break says under it how to see
// why, in the report's language; not with Trace, which shows why already.
func TestTextHint(t *testing.T) {
	text := func(wr report.Writer) string {
		var b bytes.Buffer
		require.NoError(t, wr.Write(&b, sample()))
		return b.String()
	}
	assert.Contains(t, text(report.Writer{Hint: true}), "holder-overrun  breaks   holds!\n\nWhy a cell breaks: -trace draws each break (with -strategy S -property P, that one); docs/S.md explains strategy S.\n1 of 4")
	assert.Contains(t, text(report.Writer{Hint: true, Lang: report.Chinese}), "\n\n某一格为什么是 breaks：-trace 会画出每个 break（加上 -strategy S -property P 只画那一个）；docs/zh/S.md 讲解方案 S。\n")
	assert.NotContains(t, text(report.Writer{Hint: true, Trace: true}), "Why a cell breaks")
	assert.NotContains(t, text(report.Writer{}), "Why a cell breaks")
}

// TestUndeclared: a report with no declared verdict (lockcheck -exec)
// marks nothing but the checks that reached no verdict.
func TestUndeclared(t *testing.T) {
	rep := sample()
	for i := range rep.Results {
		rep.Results[i].Expected = ""
	}
	rep.Results[3].Err = errors.New("php x.php (client A): at start: no ready line within 10s")
	var b bytes.Buffer
	require.NoError(t, report.Writer{}.Write(&b, rep))
	assert.Equal(t, `Verdicts on Redis 7.0.15, 2026-11-22T10:00:00Z

property        setnxpx  luatoken
exclusion       holds    holds
holder-overrun  breaks   error!

Checks: 4, none with a declared verdict; without a verdict (error): 1.
  luatoken / holder-overrun: no verdict: php x.php (client A): at start: no ready line within 10s
`, b.String())
	assert.False(t, rep.OK())
	rep.Results = rep.Results[:3]
	assert.True(t, rep.OK())
	b.Reset()
	require.NoError(t, report.Writer{Lang: report.Chinese}.Write(&b, rep))
	assert.Contains(t, b.String(), "检查：3 项，都没有声明的判定；没有得出判定（error）的：0 项。")
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.Writer{Format: report.Markdown, Trace: true}.Write(&b, sample()))
	assert.Contains(t, b.String(), `| property | setnxpx | luatoken |
|---|---|---|
| exclusion | holds | holds |
| holder-overrun | breaks | holds! |
`)
	assert.Contains(t, b.String(), "- luatoken / holder-overrun: holds, declared breaks: A resumes\n")
	assert.Contains(t, b.String(), "### setnxpx: holder-overrun\n\nA resumes.\n\n```mermaid\nsequenceDiagram\n")
}

func TestJSON(t *testing.T) {
	rep := sample()
	rep.Results[0].Err = errors.New("watchdog: boom")
	var b bytes.Buffer
	require.NoError(t, report.Writer{Format: report.JSON, Trace: true}.Write(&b, rep))
	var got report.JSONReport
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, report.JSONVersion, got.Version)
	assert.True(t, strings.HasPrefix(b.String(), "{\n  \"version\": 2,\n"), "the version comes first")
	assert.Equal(t, "7.0.15", got.RedisVersion)
	assert.Equal(t, "2026-11-22T10:00:00Z", got.When)
	require.Len(t, got.Results, 4)
	assert.Equal(t, locktest.NoVerdict, got.Results[0].Verdict)
	assert.Equal(t, "watchdog: boom", got.Results[0].Err.Error())
	assert.False(t, got.Results[0].Match)
	assert.Equal(t, locktest.Breaks, got.Results[1].Verdict)
	assert.True(t, got.Results[1].Match)
	assert.NotEmpty(t, got.Results[1].Timeline)
	assert.True(t, strings.HasPrefix(got.Results[1].Mermaid, "sequenceDiagram\n"))
	assert.Empty(t, got.Results[2].Timeline)
	assert.Empty(t, got.Results[2].Mermaid)
	assert.Zero(t, got.Runs)
	assert.Empty(t, got.Changed)
}

// TestOneResultShape: a locktest.Result's JSON is a result of lockcheck's
// JSON without the fields that need a declaration: every field it has is
// there under the same name, with the same value.
func TestOneResultShape(t *testing.T) {
	for _, r := range sample().Results {
		r.Start = time.UnixMilli(1795307228016)
		r.Elapsed = 1500 * time.Microsecond
		var rep report.Report
		rep.Results = []report.Result{r}
		b, err := json.Marshal(report.Writer{}.JSON(&rep))
		require.NoError(t, err)
		var whole struct{ Results []map[string]json.RawMessage }
		require.NoError(t, json.Unmarshal(b, &whole))
		b, err = json.Marshal(r.Result)
		require.NoError(t, err)
		var alone map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &alone))
		require.NotEmpty(t, alone)
		for k, v := range alone {
			if assert.Contains(t, whole.Results[0], k, "%s: %s", r.Property, k) {
				assert.JSONEq(t, string(v), string(whole.Results[0][k]), "%s: %s", r.Property, k)
			}
		}
	}
}

func TestChanges(t *testing.T) {
	a, b := sample(), sample()
	b.Results[1].Verdict = locktest.Holds
	changes := report.Changes([][]report.Result{a.Results, b.Results, a.Results})
	require.Len(t, changes, 1)
	assert.Equal(t, report.Change{Strategy: "setnxpx", Property: locktest.HolderOverrun,
		Verdicts: []locktest.Verdict{locktest.Breaks, locktest.Holds, locktest.Breaks}}, changes[0])
	assert.Empty(t, report.Changes([][]report.Result{a.Results, a.Results}))

	a.Runs, a.Changes = 3, changes
	var out bytes.Buffer
	require.NoError(t, report.Writer{}.Write(&out, a))
	assert.Contains(t, out.String(), "1 verdict changed between the 3 runs:\n  setnxpx / holder-overrun: breaks, holds, breaks\n")
	assert.False(t, a.OK())
}

func TestVerdicts(t *testing.T) {
	var b bytes.Buffer
	report.Writer{}.Verdicts(&b, sample(), "luatoken")
	assert.Equal(t, `| property | verdict | what the suite saw |
|---|---|---|
| exclusion | holds | A resumes |
| holder-overrun | holds! | A resumes |
`, b.String())
}

// TestMermaidMasters: a lock over several masters draws one participant
// for each master its commands went to, in order, and each command's
// arrow to its master.
func TestMermaidMasters(t *testing.T) {
	tl := []history.Event{
		{Client: "A", Kind: history.EvCommand, Node: "master-1", Command: []history.Arg{txt("SET"), keyArg, txt("x")}, Reply: reply(txt("OK"))},
		{Client: "A", Kind: history.EvCommand, Node: "master-0", Command: []history.Arg{txt("SET"), keyArg, txt("x")}, Reply: reply(txt("OK"))},
		{Client: "B", Kind: history.EvCommand, Node: "master-0", Command: []history.Arg{txt("SET"), keyArg, txt("y")}, Reply: reply(txt("(nil)"))},
		{Kind: history.EvNote, Msg: message("restart-amnesia.restarts", "master-1")},
	}
	got := report.Writer{}.Mermaid(tl)
	for _, want := range []string{
		"participant A\n    participant B\n    participant master-0\n    participant master-1\n",
		// A's two SETs went out at once: drawn in the masters' order.
		"A->>master-0: SET K x\n    master-0-->>A: OK\n    A->>master-1: SET K x",
		"master-1-->>A: OK", "B->>master-0: SET K y",
		"Note over A,master-1: master-1 restarts without persistence: it comes back empty, without A's lock",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the diagram lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "participant Redis") {
		t.Errorf("a participant Redis beside the masters:\n%s", got)
	}
}

// messagesTimeline has what the suite records besides lock calls: clock
// readings, HELLO's reply, a time at K, the time K has left, a script's
// digest, a command without a reply, one refused by a partition and an
// acquire that failed with an error. run varies what changes between two
// runs of the same scenario: times, the digest, the time left, the
// server's version and the order of clock readings taken at once.
func messagesTimeline(run int) []history.Event {
	t0 := int64(1795306148871 + 1000*run)
	d := int64(run) // a few ms later on each run
	left := history.Arg{Kind: history.ArgLeft, Text: fmt.Sprint(4987 - d)}
	clocks := []history.Event{
		ev(0, "A", history.EvClock, message("event.clock-ahead", val(stamp(t0, 1+d)), 2*time.Second)),
		ev(0, "B", history.EvClock, message("event.clock-behind", val(stamp(t0, 3+d)), 2*time.Second)),
	}
	if run%2 == 1 {
		clocks[0], clocks[1] = clocks[1], clocks[0]
	}
	tl := append(clocks,
		typed(0, "A", reply(history.Arg{Kind: history.ArgServer, Text: fmt.Sprintf("[server, redis, version, 7.0.%d]", run)}), txt("HELLO"), num("3")),
		typed(0.1, "A", reply(txt("OK")), txt("SET"), keyArg, stamp(t0, 5001+d), txt("NX")),
		typed(0.2, "A", reply(left), txt("PTTL"), keyArg),
		typed(0.2, "A", reply(num("-2")), txt("PTTL"), keyArg),
		typed(0.3, "A", reply(dig(fmt.Sprintf("%040d", run))), txt("SCRIPT"), txt("LOAD"), txt("return 1")),
		ev(0.4, "", history.EvNote, message("suite.reads-pttl", val(left))),
		history.Event{At: ms(0.5), Client: "A", Kind: history.EvCommand, Command: []history.Arg{txt("GET"), keyArg}, Msg: message("event.no-reply")},
		history.Event{At: ms(0.5), Client: "B", Kind: history.EvCommand, Command: []history.Arg{txt("GET"), keyArg}, Msg: message("event.unreachable")},
		history.Event{At: ms(0.6), Client: "B", Kind: history.EvAcquired, Err: "setnxpx: SET K: i/o timeout"},
	)
	toks := []string{"a"}
	for i := range 3 + run {
		toks = append(toks, fmt.Sprint("b", i))
	}
	return append(tl, lockTimeline(toks, fmt.Sprintf("%040d", run))...)
}

// TestMermaidMessages: what events say is drawn from their messages, in
// the diagram's language: clock readings, a command's missing reply, a
// note with a value, a lock call's error.
func TestMermaidMessages(t *testing.T) {
	tl := messagesTimeline(0)
	en := report.Writer{}.Mermaid(tl)
	for _, want := range []string{
		"    Note over A: now = t0+1ms (clock 2s ahead)\n    Note over B: now = t0+3ms (clock 2s behind)\n",
		"    Redis-->>A: [server, redis, version, 7.0.0]\n",
		"    A->>Redis: SET K t0+5001ms NX\n",
		"    A->>Redis: PTTL K\n    Redis-->>A: 4987\n",
		"    Redis-->>A: 0000000…\n",
		"    Note over A,Redis: the suite reads PTTL K: 4987\n",
		"    A->>Redis: GET K\n    Redis-->>A: error: no reply: the connection closed first\n",
		"    B->>Redis: GET K\n    Redis-->>B: error: unreachable: the network between them is cut\n",
		"    Note over B: acquire failed: setnxpx: SET K: i/o timeout\n",
	} {
		assert.Contains(t, en, want)
	}
	zh := report.Writer{Lang: report.Chinese}.Mermaid(tl)
	for _, want := range []string{
		"    Note over A: 时钟读数 = t0+1ms（时钟快了 2s）\n    Note over B: 时钟读数 = t0+3ms（时钟慢了 2s）\n",
		"    Note over A,Redis: 测试套件读取 PTTL K：4987\n",
		"    Redis-->>A: 错误：没有回复：连接先断了\n",
		"    Redis-->>B: 错误：不可达：两者之间的网络断了\n",
		"    Note over B: 加锁失败：setnxpx: SET K: i/o timeout\n",
		"    Note over B: 没拿到锁\n",
	} {
		assert.Contains(t, zh, want)
	}
}

// TestShape: Shape draws what changes between runs of the same scenario
// as placeholders, so two runs draw the same shape, in either language;
// what does not change stays.
func TestShape(t *testing.T) {
	for _, l := range report.Langs() {
		shape := report.Writer{Lang: l, Shape: true}
		a, b := shape.Mermaid(messagesTimeline(0)), shape.Mermaid(messagesTimeline(1))
		assert.Equal(t, a, b, l)
		assert.NotEqual(t, report.Writer{Lang: l}.Mermaid(messagesTimeline(0)), report.Writer{Lang: l}.Mermaid(messagesTimeline(1)), "the runs differ")
	}
	got := report.Writer{Lang: report.English, Shape: true}.Mermaid(messagesTimeline(0))
	for _, want := range []string{
		"    Note over A: now = t0±Δ (clock 2s ahead)\n    Note over B: now = t0±Δ (clock 2s behind)\n",
		"    Redis-->>A: SERVER\n",
		"    A->>Redis: SET K t0±Δ NX\n",
		"    A->>Redis: PTTL K\n    Redis-->>A: LEFT\n    A->>Redis: PTTL K\n    Redis-->>A: -2\n",
		"    Redis-->>A: SHA\n",
		"    Note over A,Redis: the suite reads PTTL K: LEFT\n",
		"    loop ×N\n        B->>Redis: SET K (new token) NX PX 5000\n",
		"    B->>Redis: EVALSHA SHA 1 K tokB\n",
	} {
		assert.Contains(t, got, want)
	}
	assert.Contains(t, report.Writer{Lang: report.Chinese, Shape: true}.Mermaid(messagesTimeline(1)), "    Note over A: 时钟读数 = t0±Δ（时钟快了 2s）\n    Note over B: 时钟读数 = t0±Δ（时钟慢了 2s）\n")

	// A reason's values are written the same way.
	res := report.Result{Strategy: "s", Expected: locktest.Breaks}
	res.Property, res.Verdict = locktest.Exclusion, locktest.Breaks
	res.Message = *message("suite.reads-pttl", val(history.Arg{Kind: history.ArgLeft, Text: "4987"}))
	assert.Equal(t, "the suite reads PTTL K: LEFT", report.Writer{Lang: report.English, Shape: true}.Reason(res))
	assert.Equal(t, "测试套件读取 PTTL K：LEFT", report.Writer{Lang: report.Chinese, Shape: true}.Reason(res))
	assert.Equal(t, "the suite reads PTTL K: 4987", report.Writer{Lang: report.English}.Reason(res))
}

// TestScales: the header names the columns that ran at a coarser time
// scale, with the step and why, in each language, and in JSON; a run
// at the default scale says nothing of it.
func TestScales(t *testing.T) {
	res := func(s string, g time.Duration) report.Result {
		return report.Result{Strategy: s, Expected: locktest.Holds,
			Result: locktest.Result{Property: locktest.CrashRecovery, Verdict: locktest.Holds, Granularity: g}}
	}
	rep := &report.Report{RedisVersion: "7.0.15", When: time.Unix(0, 0),
		Results:   []report.Result{res("luatoken", time.Millisecond), res("go-zero", time.Second), res("laravel", time.Second)},
		ScaleFrom: map[string]report.ScaleFrom{"go-zero": report.ScaleLock, "laravel": report.ScaleFlag}}
	var en, zh, plain bytes.Buffer
	require.NoError(t, report.Writer{}.Write(&en, rep))
	assert.Contains(t, en.String(), "Time scale: go-zero at a granularity of 1s (the step in which the lock counts TTLs, which it announces), every TTL the suite asked for a whole multiple of it.\n")
	assert.Contains(t, en.String(), "The other columns ran at 1ms.\n")
	assert.Contains(t, en.String(), "Time scale: laravel at a granularity of 1s (set by -granularity)")
	require.NoError(t, report.Writer{Format: report.Markdown, Lang: report.Chinese}.Write(&zh, rep))
	assert.Contains(t, zh.String(), "时间尺度：go-zero 以 1s 为粒度运行")
	j := report.Writer{}.JSON(rep)
	assert.Equal(t, time.Second, j.Results[1].Granularity)
	assert.Equal(t, report.ScaleLock, j.Results[1].ScaleFrom)
	assert.Equal(t, report.ScaleFrom(""), j.Results[0].ScaleFrom)

	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(j))
	back, err := report.ReadJSON(&buf)
	require.NoError(t, err)
	assert.Equal(t, rep.ScaleFrom, back.ScaleFrom, "read back from JSON, the scales and why")

	rep.Results = rep.Results[:1]
	require.NoError(t, report.Writer{}.Write(&plain, rep))
	assert.NotContains(t, plain.String(), "Time scale")
}

// TestNotes: the notes of the results (keys a lock wrote outside its own)
// are listed under the matrix, each once per column with how many checks
// say it, in text, Markdown and HTML, in the report's language; JSON
// carries them with each result, as data and in words.
func TestNotes(t *testing.T) {
	rep := sample()
	probe := *message("keys.outside", "symfony_check_support_time")
	rep.Results[2].Notes = []locktest.Message{probe}
	rep.Results[3].Notes = []locktest.Message{probe}
	const line = "luatoken: the lock also wrote symfony_check_support_time, outside its own keys: named here, judged on nothing (2 checks)\n"

	var b bytes.Buffer
	require.NoError(t, report.Writer{Format: report.Text}.Write(&b, rep))
	assert.Contains(t, b.String(), "  luatoken / holder-overrun: holds, declared breaks: A resumes\nNotes, beside the verdicts:\n  "+line)
	b.Reset()
	require.NoError(t, report.Writer{Format: report.Markdown}.Write(&b, rep))
	assert.Contains(t, b.String(), "Notes, beside the verdicts:\n- "+line)
	b.Reset()
	require.NoError(t, report.Writer{Format: report.HTML}.Write(&b, rep))
	assert.Contains(t, b.String(), "Notes, beside the verdicts:\n- "+line)
	b.Reset()
	require.NoError(t, report.Writer{Format: report.Text, Lang: report.Chinese}.Write(&b, rep))
	assert.Contains(t, b.String(), "附注（不影响判定）：\n  luatoken：这把锁还写了 symfony_check_support_time，在它自己的键之外：这里列出来，不据此作任何判定（2 项检查）\n")

	b.Reset()
	require.NoError(t, report.Writer{Format: report.JSON, Lang: report.Chinese}.Write(&b, rep))
	assert.Contains(t, b.String(), `"notes": [`+"\n"+`        "这把锁还写了 symfony_check_support_time`)
	assert.Contains(t, b.String(), `"note_messages": [`)
	back, err := report.ReadJSON(&b)
	require.NoError(t, err)
	assert.Equal(t, []locktest.Message{probe}, back.Results[3].Notes)
	assert.Empty(t, back.Results[0].Notes)

	b.Reset()
	require.NoError(t, report.Writer{Format: report.Text}.Write(&b, sample()))
	assert.NotContains(t, b.String(), "Notes")
}
