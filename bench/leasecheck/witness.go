package leasecheck

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Witness returns the operations of h up to the first one, in the order
// of their calls, without which the history is still legal: the end of
// the shortest illegal prefix, which shows what porcupine rejects. A
// prefix leaves out the calls that began later, which could only have
// helped the ones before them if they took effect first; nil when h is
// legal.
func Witness(h History, timeout time.Duration) []Op {
	ops := slices.Clone(h.Ops)
	slices.SortStableFunc(ops, func(a, b Op) int { return int(a.Call - b.Call) })
	illegal := func(n int) bool {
		v := Check(History{Ops: ops[:n], Tol: h.Tol}, timeout)
		return !v.Legal
	}
	if !illegal(len(ops)) {
		return nil
	}
	lo, hi := 0, len(ops) // illegal(hi), and legal(lo) for lo's sake
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if illegal(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return ops[:hi]
}

// String writes op on one line: who, what, its outcome, its interval,
// its TTL.
func (op Op) String() string {
	kind := [...]string{Acquire: "acquire", Release: "release", Refresh: "refresh", Enter: "enter", Leave: "leave"}[op.Kind]
	if op.Kind == Enter || op.Kind == Leave {
		return fmt.Sprintf("%s#%d %s at %s", op.Client, op.Hold, kind, millis(op.Call))
	}
	out := [...]string{OK: "ok", Refused: "refused", Unknown: "unknown"}[op.Outcome]
	ret := "never"
	if op.Return < Never {
		ret = millis(op.Return)
	}
	s := fmt.Sprintf("%s#%d %s %s [%s, %s]", op.Client, op.Hold, kind, out, millis(op.Call), ret)
	if op.TTL > 0 {
		s += " ttl " + op.TTL.String()
	}
	if op.Renews {
		s += " renews"
	}
	return s
}

// FormatOps writes ops one a line, the last n of them at most.
func FormatOps(ops []Op, n int) string {
	var b strings.Builder
	if len(ops) > n {
		fmt.Fprintf(&b, "(%d earlier operations left out)\n", len(ops)-n)
		ops = ops[len(ops)-n:]
	}
	for _, op := range ops {
		b.WriteString(op.String() + "\n")
	}
	return b.String()
}

// millis writes d in milliseconds, to a microsecond.
func millis(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d.Microseconds())/1000) }
