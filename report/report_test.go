package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const key = "lockcheck:d4qk1n9ksdu8h2v0a3pg:luatoken:holder-overrun"

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

func cmd(at float64, client, reply string, args ...string) locktest.Event {
	return locktest.Event{At: ms(at), Client: client, Kind: locktest.EvCommand, Command: args, Reply: reply}
}

func ev(at float64, client string, kind locktest.EventKind, text string) locktest.Event {
	return locktest.Event{At: ms(at), Client: client, Kind: kind, Text: text}
}

// overrun is luatoken's holder-overrun timeline, shortened.
func overrun() []locktest.Event {
	tl := []locktest.Event{
		ev(0, "", locktest.EvNote, "t0 = 1795306148871 (Unix ms); K = "+key),
		cmd(0.1, "A", "OK", "SET", "K", "dc13591ksdu9l73uo0d0", "NX", "PX", "60"),
		{At: ms(0.1), Client: "A", Kind: locktest.EvAcquired, Reply: "lock acquired"},
		ev(0.1, "A", locktest.EvEnter, "enters the critical section"),
		ev(0.1, "", locktest.EvNote, "A keeps working past its TTL (60ms); B waits up to 560ms"),
	}
	for i, tok := range []string{"dc13591ksdu9l73uo0d1", "dc13591ksdu9l73uo0d2", "dc13591ksdu9l73uo0d3"} {
		tl = append(tl, cmd(0.2+5*float64(i), "B", "(nil)", "SET", "K", tok, "NX", "PX", "5000"))
	}
	return append(tl,
		cmd(60.5, "B", "OK", "SET", "K", "dc13591ksdu9l73uo0d4", "NX", "PX", "5000"),
		locktest.Event{At: ms(60.5), Client: "B", Kind: locktest.EvAcquired, Reply: "lock acquired"},
		ev(60.5, "B", locktest.EvEnter, "enters the critical section"),
		ev(60.5, "B", locktest.EvOverlap, "B entered while A was inside"),
		ev(60.6, "B", locktest.EvLeave, "leaves the critical section"),
		cmd(60.6, "B", "1", "EVALSHA", "74c117a56a246dabd130625dd4e9574d072be8a6", "1", "K", "dc13591ksdu9l73uo0d4"),
		locktest.Event{At: ms(60.6), Client: "B", Kind: locktest.EvReleased, Reply: "released"},
		ev(60.7, "A", locktest.EvLeave, "leaves the critical section"),
		cmd(60.7, "A", "0", "EVALSHA", "74c117a56a246dabd130625dd4e9574d072be8a6", "1", "K", "dc13591ksdu9l73uo0d0"),
		locktest.Event{At: ms(60.7), Client: "A", Kind: locktest.EvReleased, Err: `luatoken: release "` + key + `": locklab: lock not held`},
	)
}

func TestMermaid(t *testing.T) {
	want := `sequenceDiagram
    participant A
    participant B
    participant Redis
    Note over A,Redis: t0 = 1795306148871 (Unix ms)#59; K = ` + key + `
    A->>Redis: SET K tokA NX PX 60
    Redis-->>A: OK
    Note over A: lock acquired
    Note over A: enters the critical section
    activate A
    Note over A,Redis: A keeps working past its TTL (60ms)#59; B waits up to 560ms
    loop ×3 (0.2ms–10.2ms)
        B->>Redis: SET K (new token) NX PX 5000
        Redis-->>B: (nil)
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
	assert.Equal(t, want, report.Mermaid(overrun()))
}

// TestMermaidGroups: a repeated group of events collapses into one loop,
// and the values that change read first…last.
func TestMermaidGroups(t *testing.T) {
	var tl []locktest.Event
	for i := range 4 {
		now := []string{"t0+0ms", "t0+5ms", "t0+11ms", "t0+16ms"}[i]
		tl = append(tl,
			locktest.Event{At: ms(float64(5 * i)), Client: "B", Kind: locktest.EvClock, Text: "now = " + now},
			cmd(float64(5*i), "B", "0", "SETNX", "K", "t0+50"+now[3:]),
			cmd(float64(5*i), "B", "t0+60ms", "GET", "K"))
	}
	tl = append(tl, cmd(21, "B", "t0+60ms", "GETSET", "K", "t0+5021ms"))
	got := report.Mermaid(tl)
	assert.Contains(t, got, `    loop ×4 (0.0ms–15.0ms)
        Note over B: now = t0+0ms…t0+16ms
        B->>Redis: SETNX K t0+500ms…t0+5016ms
        Redis-->>B: 0
        B->>Redis: GET K
        Redis-->>B: t0+60ms
    end
    B->>Redis: GETSET K t0+5021ms
`)
}

// TestMermaidHexTokens: the 32-hex-digit tokens of other languages' locks
// (a uuid's hex, as redis-py writes) are named like xids.
func TestMermaidHexTokens(t *testing.T) {
	tl := []locktest.Event{cmd(0, "A", "OK", "SET", "K", "6a025fcce74111f1b9e402fc00000001", "PX", "60", "NX")}
	for i, tok := range []string{"6a03342ee74111f19a5e02fc00000001", "6a04a228e74111f19a5e02fc00000001", "6a0594bce74111f19a5e02fc00000001"} {
		tl = append(tl, cmd(float64(5*i+1), "B", "(nil)", "SET", "K", tok, "PX", "5000", "NX"))
	}
	tl = append(tl, cmd(70, "A", "0", "EVALSHA", "c3f8721be2e1d6c6fca8e9a1d8a1e1c3b5f0a6d2", "1", "K", "6a025fcce74111f1b9e402fc00000001"))
	got := report.Mermaid(tl)
	assert.Contains(t, got, `    A->>Redis: SET K tokA PX 60 NX
    Redis-->>A: OK
    loop ×3 (1.0ms–11.0ms)
        B->>Redis: SET K (new token) PX 5000 NX
        Redis-->>B: (nil)
    end
    A->>Redis: EVALSHA c3f8721… 1 K tokA
`)
}

func TestMermaidEscapes(t *testing.T) {
	tl := []locktest.Event{
		ev(0, "A", locktest.EvCrash, `dies right after its command #1 (SETNX) returns; "quoted" <b>`),
		cmd(0, "A", "", "GET", "K"),
		{Client: "A", Kind: locktest.EvCommand, Command: []string{"GET", "K"}, Err: "ERR x;y"},
	}
	got := report.Mermaid(tl)
	assert.Contains(t, got, "Note over A: dies right after its command #35;1 (SETNX) returns#59; #quot;quoted#quot; #lt;b#gt;\n")
	assert.Contains(t, got, "Redis-->>A: #quot;#quot;\n")
	assert.Contains(t, got, "Redis-->>A: error: ERR x#59;y\n")
	assert.NotContains(t, got, "loop", "events that differ do not collapse")
}

func sample() *report.Report {
	r := func(s string, p locktest.Property, got, want locktest.Verdict) report.Result {
		res := report.Result{Strategy: s, Expected: want}
		res.Property, res.Verdict, res.Reason = p, got, "because"
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
	require.NoError(t, report.Text(&b, sample(), report.Options{}))
	assert.Equal(t, `Verdicts on Redis 7.0.15, 2026-11-22T10:00:00Z

property        setnxpx  luatoken
exclusion       holds    holds
holder-overrun  breaks   holds!

1 of 4 verdicts is not the declared one (marked !):
  luatoken / holder-overrun: holds, declared breaks: because
`, b.String())
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
	require.NoError(t, report.Text(&b, rep, report.Options{}))
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
	require.NoError(t, report.Text(&b, rep, report.Options{Lang: report.Chinese}))
	assert.Contains(t, b.String(), "检查：3 项，都没有声明的判定；没有得出判定（error）的：0 项。")
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, report.Markdown(&b, sample(), report.Options{Trace: true}))
	assert.Contains(t, b.String(), `| property | setnxpx | luatoken |
|---|---|---|
| exclusion | holds | holds |
| holder-overrun | breaks | holds! |
`)
	assert.Contains(t, b.String(), "- luatoken / holder-overrun: holds, declared breaks: because\n")
	assert.Contains(t, b.String(), "### setnxpx: holder-overrun\n\nbecause.\n\n```mermaid\nsequenceDiagram\n")
}

func TestJSON(t *testing.T) {
	rep := sample()
	rep.Results[0].Err = errors.New("watchdog: boom")
	var b bytes.Buffer
	require.NoError(t, report.JSON(&b, rep, report.Options{Trace: true}))
	var got report.JSONReport
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, "7.0.15", got.RedisVersion)
	assert.Equal(t, "2026-11-22T10:00:00Z", got.When)
	require.Len(t, got.Results, 4)
	assert.Equal(t, report.VerdictError, got.Results[0].Verdict)
	assert.Equal(t, "watchdog: boom", got.Results[0].Error)
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
	require.NoError(t, report.Text(&out, a, report.Options{}))
	assert.Contains(t, out.String(), "1 verdict changed between the 3 runs:\n  setnxpx / holder-overrun: breaks, holds, breaks\n")
	assert.False(t, a.OK())
}

func TestVerdicts(t *testing.T) {
	var b bytes.Buffer
	report.Verdicts(&b, sample(), "luatoken")
	assert.Equal(t, `| property | verdict | what the suite saw |
|---|---|---|
| exclusion | holds | because |
| holder-overrun | holds! | because |
`, b.String())
}

// TestMermaidOtherTokens: the random values other locks write (16 bytes
// in base64 or unpadded base64url, crypto/rand.Text) are tokens too, read
// as a whole word: named after their client, and a waiter's attempts,
// each with a new one, collapse into one loop.
func TestMermaidOtherTokens(t *testing.T) {
	for _, toks := range [][]string{
		{"/ihKpkJSek+PXSDZqbl5/w==", "kdHUvJpRNQ020b4qPpk2fw==", "G24//RoIPz1sMIgsOAFncQ==", "JGfrdeTlCkYZF8R8dvD38A=="},
		{"74nPwwXPv6H3tSut8yca6g", "Ab-_cdEFghIJklMNopQRst", "0123456789abcdefABCDEF", "zz_zz-zz_zz-zz_zz-zz_z"},
		{"ZQL4XHY7HYTVBMFNGZBHAVWJ3K", "AAAAAAAAAAAAAAAAAAAAAAAAA2", "QRSTUVWXYZ234567QRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	} {
		tl := []locktest.Event{
			ev(0, "", locktest.EvNote, "t0 = 1795306148871 (Unix ms); K = "+key),
			cmd(0.1, "A", "OK", "set", "K", toks[0], "px", "60", "nx"),
		}
		for i, tok := range toks[1:] {
			tl = append(tl,
				cmd(0.2+5*float64(i), "B", "(nil)", "set", "K", tok, "ex", "5", "nx"),
				cmd(0.3+5*float64(i), "B", "0", "evalsha", "e950836ed1e694540c503ef9972b8de518044d3b", "1", "K", tok))
		}
		tl = append(tl, cmd(20, "A", "1", "evalsha", "e950836ed1e694540c503ef9972b8de518044d3b", "1", "K", toks[0]))
		assert.Equal(t, `sequenceDiagram
    participant A
    participant B
    participant Redis
    Note over A,Redis: t0 = 1795306148871 (Unix ms)#59; K = `+key+`
    A->>Redis: set K tokA px 60 nx
    Redis-->>A: OK
    loop ×3 (0.2ms–10.3ms)
        B->>Redis: set K (new token) ex 5 nx
        Redis-->>B: (nil)
        B->>Redis: evalsha e950836… 1 K (new token)
        Redis-->>B: 0
    end
    A->>Redis: evalsha e950836… 1 K tokA
    Redis-->>A: 1
`, report.Mermaid(tl), toks[0])
	}

	// Words of other lengths or alphabets are not tokens.
	tl := []locktest.Event{cmd(0, "A", "OK", "set", "K", "stale-takeover-race/none", "px", "60", "abcdefghijklmnopqrstuvwxyz")}
	assert.Contains(t, report.Mermaid(tl), "A->>Redis: set K stale-takeover-race/none px 60 abcdefghijklmnopqrstuvwxyz\n")
}
