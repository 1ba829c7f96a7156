package msg

import (
	"strings"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	d := &Def{ID: "test.render", Kinds: K(Count, Duration, Client, Op), English: "{0} {0|command|commands} in {1} by {2}'s {3}"}
	defs[d.ID] = d
	defer delete(defs, d.ID)
	catalogs["zh"][d.ID] = "{2} 的{3}在 {1} 内发了 {0} 条命令"
	defer delete(catalogs["zh"], d.ID)
	for _, c := range []struct {
		m    Msg
		lang Lang
		want string
	}{
		{d.New(1, 50*time.Millisecond, "A", "release"), English, "1 command in 50ms by A's release"},
		{d.New(2, 50*time.Millisecond, "A", "release"), English, "2 commands in 50ms by A's release"},
		{d.New(2, 50*time.Millisecond, "A", "second release"), "zh", "A 的第二次释放在 50ms 内发了 2 条命令"},
	} {
		if got := Render(c.lang, c.m); got != c.want {
			t.Errorf("Render(%s, %v) = %q, want %q", c.lang, c.m, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		kinds  []Kind
		en, zh string
		want   string // in the errors, or "" for none
	}{
		{K(Count), "{0} {0|x|xs}", "{0}", ""},
		{K(Count), "{0}", "", "no zh template"},
		{K(Count), "{1}", "{0}", "{1} but 1 arguments"},
		{K(Client), "{0} {0|x|xs}", "{0}", "plural of {0}"},
		{K(Client, Count), "{0}", "{0}{1}", "argument 1 unused"},
		{K(Client), "{0", "{0}", "malformed"},
	} {
		d := &Def{ID: "test.check", Kinds: c.kinds, English: c.en}
		catalogs["zh"][d.ID] = c.zh
		if c.zh == "" {
			delete(catalogs["zh"], d.ID)
		}
		errs := strings.Join(d.Check(), "\n")
		delete(catalogs["zh"], d.ID)
		if c.want == "" && errs != "" || !strings.Contains(errs, c.want) {
			t.Errorf("Check(%q, %q) = %q, want %q", c.en, c.zh, errs, c.want)
		}
	}
}

func TestNewPanicsOnMisfit(t *testing.T) {
	d := &Def{ID: "x", Kinds: K(Count)}
	defer func() {
		if recover() == nil {
			t.Error("New with a string for a count did not panic")
		}
	}()
	d.New("one")
}

func TestSpace(t *testing.T) {
	for in, want := range map[string]string{
		"在t0+60ms时，K 已经过期": "在 t0+60ms 时，K 已经过期",
		"（SETNX）返回":        "（SETNX）返回", // no space next to full-width punctuation
		"A、B还在":            "A、B 还在",
	} {
		if got := Space(in); got != want {
			t.Errorf("Space(%q) = %q, want %q", in, got, want)
		}
	}
}
