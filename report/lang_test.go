package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLang(t *testing.T) {
	for s, want := range map[string]Lang{"": English, "en": English, "zh": Chinese} {
		l, err := ParseLang(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, l)
	}
	_, err := ParseLang("fr")
	assert.EqualError(t, err, `unknown language "fr"; the languages are en, zh`)
}

// message is the suite's message id with args, as msg.Def.New makes it;
// it panics when id is not declared or args do not fit it.
func message(id string, args ...any) locktest.Message {
	d := msg.Defs()[id]
	if d == nil {
		panic("no message " + id)
	}
	return d.New(args...)
}

// chineseSample is a report whose reasons and timeline are the suite's own
// messages, as a check records them.
func chineseSample() *Report {
	res := func(s string, p locktest.Property, got, want locktest.Verdict, m locktest.Message, tl []history.Event) Result {
		r := Result{Strategy: s, Expected: want}
		r.Property, r.Verdict, r.Message, r.Timeline = p, got, m, tl
		return r
	}
	ev := func(client string, kind history.EventKind, m locktest.Message) history.Event {
		return history.Event{Client: client, Kind: kind, Msg: &m}
	}
	// A lock call's event, or the critical section's, with the message
	// the recorder gives it.
	outcome := func(client string, kind history.EventKind) history.Event {
		return ev(client, kind, message("event."+string(kind)))
	}
	text := func(s string) history.Arg { return history.Arg{Kind: history.ArgText, Text: s} }
	key := history.Arg{Kind: history.ArgKey, Text: "lockcheck:x"}
	set := func(client, ttl string) history.Event {
		return history.Event{Client: client, Kind: history.EvCommand,
			Command: []history.Arg{text("SET"), key, text("1"), text("NX"), text("PX"), {Kind: history.ArgNumber, Text: ttl}},
			Reply:   []history.Arg{text("OK")}}
	}
	del := func(client, n string) history.Event {
		return history.Event{Client: client, Kind: history.EvCommand, Command: []history.Arg{text("DEL"), key},
			Reply: []history.Arg{{Kind: history.ArgNumber, Text: n}}}
	}
	overlap := message("overlap", "B", []string{"A"})
	tl := []history.Event{
		set("A", "60"),
		outcome("A", history.EvAcquired),
		outcome("A", history.EvEnter),
		ev("", history.EvNote, message("late.works", 60*time.Millisecond, 560*time.Millisecond)),
		set("B", "5000"),
		outcome("B", history.EvAcquired),
		outcome("B", history.EvEnter),
		ev("B", history.EvOverlap, overlap),
		outcome("B", history.EvLeave),
		del("B", "1"),
		outcome("B", history.EvReleased),
		outcome("A", history.EvLeave),
		del("A", "0"),
		{Client: "A", Kind: history.EvReleased, Err: "setnxpx: DEL K: locklab: lock not held"},
	}
	return &Report{
		RedisVersion: "7.0.15",
		When:         time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Results: []Result{
			res("setnxpx", locktest.ClockSkew, locktest.NotApplicable, locktest.NotApplicable, message("clock.n/a"), nil),
			res("setnxpx", locktest.HolderOverrun, locktest.Breaks, locktest.Breaks, message("holder-overrun.breaks", overlap), tl),
			res("luatoken", locktest.ClockSkew, locktest.NotApplicable, locktest.NotApplicable, message("clock.n/a"), nil),
			res("luatoken", locktest.HolderOverrun, locktest.Holds, locktest.Breaks, message("holder-overrun.holds"), nil),
		},
	}
}

func TestTextChinese(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Writer{Trace: true, Lang: Chinese}.Write(&b, chineseSample()))
	assert.Equal(t, `Redis 7.0.15 上的判定，2026-11-22T10:00:00Z

性质            setnxpx  luatoken
clock-skew      n/a      n/a
holder-overrun  breaks   holds!

4 项判定中有 1 项与声明的不一致（标有 !）：
  luatoken / holder-overrun：holds，声明为 breaks：A 干活超过 TTL 期间，B 没有拿到锁

setnxpx / holder-overrun：breaks：A 还在干活，TTL 就到期了，B 拿到了锁：B 进入时 A 还在临界区内
sequenceDiagram
    participant A
    participant B
    participant Redis
    A->>Redis: SET K 1 NX PX 60
    Redis-->>A: OK
    Note over A: 拿到锁
    Note over A: 进入临界区
    activate A
    Note over A,Redis: A 干活超过了 TTL（60ms）；B 最多等待 560ms
    B->>Redis: SET K 1 NX PX 5000
    Redis-->>B: OK
    Note over B: 拿到锁
    Note over B: 进入临界区
    activate B
    Note over A,B: 重叠：B 进入时 A 还在临界区内
    deactivate B
    Note over B: 离开临界区
    B->>Redis: DEL K
    Redis-->>B: 1
    Note over B: 已释放
    deactivate A
    Note over A: 离开临界区
    A->>Redis: DEL K
    Redis-->>A: 0
    Note over A: 释放失败：setnxpx: DEL K: locklab: lock not held
`, b.String())
}

func TestMarkdownChinese(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Writer{Format: Markdown, Trace: true, Lang: Chinese}.Write(&b, chineseSample()))
	assert.True(t, strings.HasPrefix(b.String(), "Redis 7.0.15 上的判定，2026-11-22T10:00:00Z：\n\n| 性质 | setnxpx | luatoken |\n|---|---|---|\n"), b.String())
	assert.Contains(t, b.String(), "- luatoken / holder-overrun：holds，声明为 breaks：A 干活超过 TTL 期间，B 没有拿到锁\n")
	assert.Contains(t, b.String(), "### setnxpx：holder-overrun\n\nA 还在干活，TTL 就到期了，B 拿到了锁：B 进入时 A 还在临界区内。\n\n```mermaid\nsequenceDiagram\n")

	b.Reset()
	Writer{Lang: Chinese}.Verdicts(&b, chineseSample(), "luatoken")
	assert.Equal(t, `| 性质 | 判定 | 测试套件看到了什么 |
|---|---|---|
| clock-skew | n/a | 这个方案从来不读客户端的时钟 |
| holder-overrun | holds! | A 干活超过 TTL 期间，B 没有拿到锁 |
`, b.String())
}

// TestJSONChinese: in Chinese, only the reasons and the diagrams change.
func TestJSONChinese(t *testing.T) {
	rep := chineseSample()
	rep.Results[0].Err = errors.New("watchdog: boom")
	en, zh := Writer{Trace: true}.JSON(rep), Writer{Trace: true, Lang: Chinese}.JSON(rep)
	require.Len(t, zh.Results, len(en.Results))
	assert.Equal(t, "A 还在干活，TTL 就到期了，B 拿到了锁：B 进入时 A 还在临界区内", zh.Results[1].Reason)
	assert.Contains(t, zh.Results[1].Mermaid, "Note over A,B: 重叠：B 进入时 A 还在临界区内\n")
	assert.Equal(t, "watchdog: boom", zh.Results[0].Err.Error(), "errors stay as they are")
	assert.Equal(t, "holder-overrun.breaks", zh.Results[1].Message.ID, "the reason as data, the same in every language")
	for i := range en.Results {
		e, z := en.Results[i], zh.Results[i]
		e.Reason, e.Mermaid, z.Reason, z.Mermaid = "", "", "", ""
		assert.Equal(t, e, z, "only reason and mermaid differ")
	}
	// The field names are the same.
	a, err := json.Marshal(en)
	require.NoError(t, err)
	b, err := json.Marshal(zh)
	require.NoError(t, err)
	var wa, wb struct{ Results []map[string]any }
	require.NoError(t, json.Unmarshal(a, &wa))
	require.NoError(t, json.Unmarshal(b, &wb))
	for i := range wa.Results {
		for k := range wa.Results[i] {
			assert.Contains(t, wb.Results[i], k)
		}
		assert.Len(t, wb.Results[i], len(wa.Results[i]))
	}
}

// TestNoVerdictChinese: a check without a verdict because of a failure
// of the suite says why in the report's language, with what its error
// adds (a stack) after it; an error that is not its message stays as it is.
func TestNoVerdictChinese(t *testing.T) {
	rep := chineseSample()
	why := msg.Defs()["fail.not-free"].New("A")
	rep.Results[0].Message, rep.Results[0].Err = why, errors.New(why.String()+"\ngoroutine 1")
	assert.Equal(t, "A 拿不到一把空闲的锁\ngoroutine 1", Chinese.tr().reason(rep.Results[0]))
	rep.Results[0].Err = errors.New("watchdog: boom")
	assert.Equal(t, "watchdog: boom", Chinese.tr().reason(rep.Results[0]))
}

// TestEnglishUnchanged: the English output is the same with Lang "" and
// English, and says what the results' English reasons say.
func TestEnglishUnchanged(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, Writer{Trace: true}.Write(&a, chineseSample()))
	require.NoError(t, Writer{Trace: true, Lang: English}.Write(&b, chineseSample()))
	assert.Equal(t, a.String(), b.String())
	assert.Contains(t, a.String(), "Note over A,B: overlap: B entered while A was inside\n")
	assert.Contains(t, a.String(), "setnxpx / holder-overrun: breaks: "+chineseSample().Results[1].Reason()+"\n")
	assert.Equal(t, Writer{}.Mermaid(chineseSample().Results[1].Timeline), Writer{Lang: English}.Mermaid(chineseSample().Results[1].Timeline))
}

// TestReasonWithoutMessage: a result without a Message has no reason,
// in any language; an event without one draws its kind.
func TestReasonWithoutMessage(t *testing.T) {
	rep := chineseSample()
	rep.Results[1].Message = locktest.Message{}
	rep.Results[1].Timeline = append(rep.Results[1].Timeline, history.Event{Client: "A", Kind: history.EvCrash})
	var b bytes.Buffer
	require.NoError(t, Writer{Trace: true, Lang: Chinese}.Write(&b, rep))
	assert.Contains(t, b.String(), "Note over A: crash\n")
	assert.Empty(t, Writer{Lang: Chinese}.Reason(rep.Results[1]))
	assert.Empty(t, rep.Results[1].Reason())
}
