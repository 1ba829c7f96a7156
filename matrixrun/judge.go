package matrixrun

import (
	"errors"
	"fmt"
	"os"

	"github.com/locklab/locklab/internal/msg"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/report"
)

// Judge reads a run saved with -format json from path and
// judges each of its results again from its history alone, without
// Redis (locktest.Judge). It prints a line for each result and a
// summary, in lang, and returns ExitOK when every result with a history
// gets its recorded verdict and reason back, ExitMismatch when one does
// not, ExitUsage when path is not a saved run.
func (p Program) Judge(path string, lang report.Lang) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s: -judge: %v\n", p.Name, err)
		return ExitUsage
	}
	defer f.Close()
	rep, err := report.ReadJSON(f)
	if err != nil {
		fmt.Fprintf(p.Stderr, "%s: -judge %s: %v\n", p.Name, path, err)
		return ExitUsage
	}
	say := func(m msg.Msg) { fmt.Fprintln(p.Stdout, msg.Render(msg.Lang(lang), m)) }
	judged, same, kept := 0, 0, 0
	for _, r := range rep.Results {
		cell := []any{r.Strategy, string(r.Property), string(r.Verdict)}
		again, err := locktest.Judge(r.Result)
		switch {
		case errors.Is(err, locktest.ErrNoHistory):
			kept++
			say(mJudgeKept.New(cell...))
			continue
		case err != nil:
			judged++
			say(mJudgeNone.New(append(cell, err.Error())...))
			continue
		}
		judged++
		if again.Verdict == r.Verdict && again.Reason() == r.Reason() {
			same++
			say(mJudgeSame.New(cell...))
			continue
		}
		say(mJudgeDiffers.New(append(cell, string(again.Verdict), again.Message)...))
	}
	say(mJudgeSummary.New(judged, same, kept))
	if same != judged {
		return ExitMismatch
	}
	return ExitOK
}

// -judge's messages.
var (
	mJudgeSame = msg.Define("judge.same", msg.K(msg.Text, msg.Text, msg.Text),
		"{0} {1}: {2}, judged again from its history: the same verdict and reason")
	mJudgeDiffers = msg.Define("judge.differs", msg.K(msg.Text, msg.Text, msg.Text, msg.Text, msg.Sub),
		"{0} {1}: recorded {2}, judged again from its history {3}: {4}")
	mJudgeNone = msg.Define("judge.none", msg.K(msg.Text, msg.Text, msg.Text, msg.Text),
		"{0} {1}: recorded {2}, and its history gives no verdict: {3}")
	mJudgeKept = msg.Define("judge.kept", msg.K(msg.Text, msg.Text, msg.Text),
		"{0} {1}: {2}, as recorded: only a break keeps a history to judge")
	mJudgeSummary = msg.Define("judge.summary", msg.K(msg.Count, msg.Count, msg.Count),
		"{0} results judged again from their histories, {1} with the recorded verdict and reason; {2} kept no history")
)
