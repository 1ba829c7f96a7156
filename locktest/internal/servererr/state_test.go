package servererr

import (
	"slices"
	"strings"
	"testing"
)

// TestNeverRefused: the transaction and connection commands a lock
// sends around its writes get no error reply in any state; release-faults
// answered MULTI with ERR, which no server sends.
func TestNeverRefused(t *testing.T) {
	for _, c := range []Command{
		cmd("MULTI"), cmd("WATCH", "k"), cmd("UNWATCH"), cmd("DISCARD"),
		cmd("AUTH", "pw"), cmd("HELLO", "3"), cmd("RESET"), cmd("QUIT"),
	} {
		if r := Replies(c); r != nil {
			t.Errorf("Replies(%v) = %q, wanted none", c, r)
		}
	}
}

// TestReplies: each command gets the replies of the states whose check
// reads its flags, and only those.
func TestReplies(t *testing.T) {
	some := func(rs ...string) []string { return rs }
	busy := some(ReplyBusy, ReplyBusyFunction)
	// What refuses any command but a few.
	base := append(some(ReplyLoading), busy...)
	// What refuses a write.
	write := append(some(ReplyReadOnly, ReplyMisconf, ReplyNoReplicas), base...)
	cases := []struct {
		cmd  Command
		want []string
	}{
		{cmd("SET", "k", "v", "NX", "PX", "100"), append(some(ReplyOOM), write...)},
		{cmd("GET", "k"), append(some(ReplyMasterDown), base...)},
		{cmd("DEL", "k"), write},
		{cmd("PING"), append(some(ReplyMasterDown, ReplyMisconf), base...)},
		{cmd("TIME"), busy},
		{cmd("PUBLISH", "ch", "m"), busy},
		{cmd("EXEC"), some(execAbort(ReplyBusy), execAbort(ReplyBusyFunction))},
		{cmd("EVALSHA", strings.Repeat("a", 40), "1", "k"), append(some(ReplyMasterDown, ReplyNoScript), base...)},
		// Scripts without shebang meet stopped writes as they run.
		{cmd("EVAL", acquireLua, "1", "k", "v", "100"), append(some(ReplyMasterDown), base...)},
		{cmd("EVAL", releaseLua, "1", "k", "v"), append(some(ReplyMasterDown), base...)},
		{cmd("EVAL", readLua, "1", "k"), append(some(ReplyMasterDown), base...)},
		{cmd("EVAL", writeLua, "1", "k", "v"), append(some(ReplyOOM), write...)},
		{cmd("EVAL", staleLua, "1", "k"), base},
		{cmd("FCALL", "f", "0"), append(some(ReplyOOM), write...)},
		{cmd("CLIENT", "SETNAME", "x"), busy},
		{cmd("NOSUCHCOMMAND"), nil},
	}
	for _, c := range cases {
		got := Replies(c.cmd)
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("Replies(%s) =\n\t%q\nwanted\n\t%q", c.cmd.Name(), got, c.want)
		}
	}
}

// TestStateLasts: a state answers every later command it applies to
// until it ends.
func TestStateLasts(t *testing.T) {
	s := &Server{}
	c := s.NewConn()
	s.Begin(Loading)
	for range 3 {
		if a := c.Answer(cmd("GET", "k")); a.Reply != ReplyLoading {
			t.Fatalf("GET while loading = %q, wanted %q", a.Reply, ReplyLoading)
		}
	}
	s.End(Loading)
	if a := c.Answer(cmd("GET", "k")); a.Reply != "" {
		t.Fatalf("GET once loaded = %q, wanted none", a.Reply)
	}
}

// TestTransaction: a queued command refused flags the transaction, and
// EXEC aborts it; the server, which never saw the refusal, must be sent
// DISCARD.
func TestTransaction(t *testing.T) {
	s := &Server{}
	c := s.NewConn()
	want := func(x Command, w Answer) {
		t.Helper()
		if a := c.Answer(x); a.Reply != w.Reply || a.Discard != w.Discard {
			t.Fatalf("%s = %+v, wanted %+v", x.Name(), a, w)
		}
	}
	want(cmd("WATCH", "k"), Answer{})
	want(cmd("MULTI"), Answer{})
	s.Begin(OOM)
	want(cmd("SET", "k", "v"), Answer{Reply: ReplyOOM})
	want(cmd("DEL", "k"), Answer{})
	s.End(OOM)
	want(cmd("EXEC"), Answer{Reply: ReplyExecAbort, Discard: true})
	want(cmd("EXEC"), Answer{}) // EXEC without MULTI: the server's own error

	want(cmd("MULTI"), Answer{})
	want(cmd("SET", "k", "v"), Answer{})
	s.Begin(Busy)
	want(cmd("EXEC"), Answer{Reply: execAbort(ReplyBusy), Discard: true})
	want(cmd("MULTI"), Answer{})
	want(cmd("DISCARD"), Answer{})
}

// TestQueuedOOMByVersion: before 7.4, past maxmemory, every command
// queued inside MULTI is refused; from 7.4 on, only those that may
// grow memory.
func TestQueuedOOMByVersion(t *testing.T) {
	for _, c := range []struct {
		version string
		want    string
	}{{"7.0.15", ReplyOOM}, {"7.2.4", ReplyOOM}, {"7.4.1", ""}, {"8.0.0", ""}} {
		v, err := ParseVersion(c.version)
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{Version: v}
		conn := s.NewConn()
		conn.Answer(cmd("MULTI"))
		s.Begin(OOM)
		if a := conn.Answer(cmd("GET", "k")); a.Reply != c.want {
			t.Errorf("%s: GET queued past maxmemory = %q, wanted %q", c.version, a.Reply, c.want)
		}
	}
	if _, err := ParseVersion("seven"); err == nil {
		t.Errorf(`ParseVersion("seven") = nil error`)
	}
}

// TestScriptsFlushed: EVALSHA gets NOSCRIPT until its script is sent
// again; queued, it is replaced by a script that gives NOSCRIPT when
// EXEC runs it.
func TestScriptsFlushed(t *testing.T) {
	s := &Server{}
	c := s.NewConn()
	s.Begin(ScriptsFlushed)
	evalsha := cmd("EVALSHA", sha(releaseLua), "1", "k", "v")
	c.Answer(cmd("MULTI"))
	if a := c.Answer(evalsha); a.Reply != "" || !slices.Equal(a.Instead, failing(ReplyNoScript)) {
		t.Errorf("EVALSHA queued, its script gone = %+v, wanted a script giving NOSCRIPT instead", a)
	}
	if a := c.Answer(cmd("EXEC")); a.Reply != "" || a.Discard {
		t.Errorf("EXEC = %+v, wanted it to run", a)
	}
	if a := c.Answer(evalsha); a.Reply != ReplyNoScript {
		t.Errorf("EVALSHA = %q, wanted %q", a.Reply, ReplyNoScript)
	}
	c.Answer(cmd("EVAL", releaseLua, "1", "k", "v"))
	if a := c.Answer(evalsha); a.Reply != "" {
		t.Errorf("EVALSHA once EVAL sent the script = %q, wanted none", a.Reply)
	}
}

// TestShimmed: a script without shebang that writes runs behind the shim
// while writes are stopped; one that only reads runs as it is.
func TestShimmed(t *testing.T) {
	s := &Server{}
	c := s.NewConn()
	c.Answer(cmd("SCRIPT", "LOAD", releaseLua))
	s.Begin(OOM)
	a := c.Answer(cmd("EVALSHA", sha(releaseLua), "1", "k", "v"))
	want := Command{"EVAL", shimmed(releaseLua, ReplyOOM, refuseGrowth), "1", "k", "v"}
	if a.Reply != "" || !slices.Equal(a.Instead, want) {
		t.Errorf("EVALSHA past maxmemory = %+v, wanted %q instead", a, want)
	}
	if a := c.Answer(cmd("EVAL", "return redis.call('get', KEYS[1])", "1", "k")); a.Reply != "" || a.Instead != nil {
		t.Errorf("EVAL of a script that reads = %+v, wanted it to run as it is", a)
	}
}

// TestMeets: a state meets a command it refuses, and a script it lets
// run only to meet it at a call (OOM at a script's first write); not a
// command it lets run as it would (OOM and DEL, which frees memory).
func TestMeets(t *testing.T) {
	script := cmd("EVAL", `return redis.call("DEL", KEYS[1])`, "1", "k")
	cases := []struct {
		st    State
		cmd   Command
		meets bool
	}{
		{OOM, script, true},
		{OOM, cmd("DEL", "k"), false},
		{OOM, cmd("SET", "k", "v"), true},
		{ScriptsFlushed, cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "1", "k"), true},
		{ScriptsFlushed, cmd("DEL", "k"), false},
		{Loading, cmd("GET", "k"), true},
		{NoReplicas, cmd("GET", "k"), false},
	}
	for _, c := range cases {
		if got := c.st.Meets(c.cmd); got != c.meets {
			t.Errorf("%v meets %v: %v, wanted %v", c.st, c.cmd, got, c.meets)
		}
	}
	if _, ok := OOM.Applies(script); ok {
		t.Errorf("OOM refuses a script without shebang before it runs")
	}
}
