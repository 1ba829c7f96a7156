package report_test

import (
	"fmt"
	"os"
	"time"

	"github.com/locklab/locklab/history"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
)

// Example writes a report built by hand, as a command builds one from the
// suite's results: the matrix as text, then in Chinese as Markdown, then
// the diagram of a timeline.
func Example() {
	rep := &report.Report{RedisVersion: "7.2.4", When: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	add := func(strategy string, p locktest.Property, found, declared locktest.Verdict) {
		r := report.Result{Strategy: strategy, Expected: declared}
		r.Property, r.Verdict = p, found
		rep.Results = append(rep.Results, r)
	}
	add("setnxpx", locktest.Exclusion, locktest.Holds, locktest.Holds)
	add("setnxpx", locktest.HolderOverrun, locktest.Breaks, locktest.Breaks)
	add("luatoken", locktest.Exclusion, locktest.Holds, locktest.Holds)
	add("luatoken", locktest.HolderOverrun, locktest.Holds, locktest.Holds)

	for _, wr := range []report.Writer{{}, {Format: report.Markdown, Lang: report.Chinese}} {
		if err := wr.Write(os.Stdout, rep); err != nil {
			fmt.Println(err)
		}
		fmt.Println()
	}

	// A's SET, with its values typed as the suite records them: the key
	// reads K, the token after the client that wrote it.
	set := history.Event{Client: "A", Kind: history.EvCommand,
		Command: []history.Arg{
			{Kind: history.ArgText, Text: "SET"},
			{Kind: history.ArgKey, Text: "lockcheck:x:k"},
			{Kind: history.ArgToken, Text: "c1f0", Client: "A"},
			{Kind: history.ArgText, Text: "NX"},
			{Kind: history.ArgText, Text: "PX"},
			{Kind: history.ArgNumber, Text: "60"},
		},
		Reply: []history.Arg{{Kind: history.ArgText, Text: "OK"}},
	}
	fmt.Print(report.Writer{}.Mermaid([]history.Event{set}))
	// Output:
	// Verdicts on Redis 7.2.4, 2026-11-22T10:00:00Z
	//
	// property        setnxpx  luatoken
	// exclusion       holds    holds
	// holder-overrun  breaks   holds
	//
	// All 4 verdicts are the declared ones.
	//
	// Redis 7.2.4 上的判定，2026-11-22T10:00:00Z：
	//
	// | 性质 | setnxpx | luatoken |
	// |---|---|---|
	// | exclusion | holds | holds |
	// | holder-overrun | breaks | holds |
	//
	// 全部 4 项判定都与声明的一致。
	//
	// sequenceDiagram
	//     participant A
	//     participant Redis
	//     A->>Redis: SET K tokA NX PX 60
	//     Redis-->>A: OK
}
