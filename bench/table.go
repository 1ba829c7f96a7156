package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// table is a grid of cells with a header row.
type table struct {
	head  []string
	right []bool // right-aligned columns
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// text renders t with columns padded to their widest cell.
func (t *table) text(w io.Writer) {
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.head)
	rule := make([]string, len(t.head))
	for i := range rule {
		rule[i] = strings.Repeat("─", width[i])
	}
	line(rule)
	for _, r := range t.rows {
		line(r)
	}
}

// markdown renders t as a Markdown table.
func (t *table) markdown(w io.Writer) {
	fmt.Fprintln(w, "| "+strings.Join(t.head, " | ")+" |")
	seps := make([]string, len(t.head))
	for i := range seps {
		seps[i] = "---"
		if t.right[i] {
			seps[i] = "---:"
		}
	}
	fmt.Fprintln(w, "| "+strings.Join(seps, " | ")+" |")
	for _, r := range t.rows {
		fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
	}
}

func num(v *float64, format string) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf(format, *v)
}

// marked appends the target's mark to a cell, when the target exists.
func marked(cell string, ts ...*Target) string {
	if len(ts) == 0 {
		return cell
	}
	met := true
	for _, t := range ts {
		if t == nil {
			return cell
		}
		met = met && t.Met
	}
	return cell + " " + Mark(met)
}

// tables builds the report's four tables: per lock, contended, targets,
// and the server's time per command.
func (rep *Report) tables() (locks, contended, targets, server *table) {
	locks = &table{
		head:  []string{"lock", "client", "commands per cycle", "server µs", "p50 µs", "p99 µs", "p50 / 2×PING", "p50 / SET+DEL", "p50 / by hand", "pairs/s", "allocs", "bytes", "16 goroutines pairs/s", "/ SET+DEL floor"},
		right: []bool{false, false, false, true, true, true, true, true, true, true, true, true, true, true},
	}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Wait != "" {
			continue
		}
		var tf, th, ta []*Target
		switch {
		case r.Name == Locklab:
			tf = []*Target{rep.target(TargetFloor)}
			ta = []*Target{rep.target(TargetAllocs)}
		case slices.Contains(Adapters, r.Name):
			th = []*Target{rep.target(fmt.Sprintf(TargetAdapterHand, r.Name, r.Client))}
			ta = []*Target{rep.target(fmt.Sprintf(TargetAdapterAllocs, r.Name))}
		}
		cycle := r.Cycle
		if r.CommandsPerOp != nil {
			cycle = fmt.Sprintf("%s (%.0f)", r.Cycle, *r.CommandsPerOp)
		}
		locks.add(r.Name, r.Client, cycle,
			num(r.ServerUsPerOp, "%.1f"),
			num(r.UncontendedP50us, "%.1f"), num(r.UncontendedP99us, "%.1f"),
			marked(num(r.FloorRatio, "%.2f"), tf...),
			num(r.SetDelRatio, "%.2f"),
			marked(num(r.HandRatio, "%.2f"), th...),
			num(r.UncontendedOpsPerS, "%.0f"),
			marked(num(r.AllocsPerOp, "%.1f"), ta...),
			num(r.BytesPerOp, "%.0f"),
			num(r.ParallelOpsPerS, "%.0f"),
			num(r.ParallelFloorRatio, "%.2f"))
	}
	ratio := func(a, b float64) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	rate := func(p50 float64) string {
		if p50 == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f", 1e6/p50)
	}
	for _, fl := range rep.Floors {
		two := 2 * fl.PingP50us
		hand := "–"
		if fl.SetEvalP50us != nil {
			hand = ratio(two, *fl.SetEvalP50us)
		}
		locks.add("floor: 2×PING", fl.Client, "PING · PING (2)",
			fmt.Sprintf("%.1f", fl.ServerTwoPingUs),
			fmt.Sprintf("%.1f", two), fmt.Sprintf("%.1f", 2*fl.PingP99us),
			"1.00", ratio(two, fl.SetDelP50us), hand, rate(two),
			fmt.Sprintf("%.1f", fl.AllocsPerOp), fmt.Sprintf("%.0f", fl.BytesPerOp),
			"–", "–")
		if fl.SetEvalP50us != nil {
			hand = ratio(fl.SetDelP50us, *fl.SetEvalP50us)
		}
		locks.add("floor: SET+DEL", fl.Client, "SET NX PX · DEL (2)",
			fmt.Sprintf("%.1f", fl.ServerSetDelUs),
			fmt.Sprintf("%.1f", fl.SetDelP50us), fmt.Sprintf("%.1f", fl.SetDelP99us),
			ratio(fl.SetDelP50us, two), "1.00", hand, rate(fl.SetDelP50us),
			"–", "–",
			fmt.Sprintf("%.0f", fl.ParallelOpsPerS), "1.00")
		if fl.SetEvalP50us != nil {
			par, parRatio := "–", "–"
			if fl.ParallelSetEvalOpsPerS != nil {
				par, parRatio = fmt.Sprintf("%.0f", *fl.ParallelSetEvalOpsPerS), ratio(*fl.ParallelSetEvalOpsPerS, fl.ParallelOpsPerS)
			}
			locks.add("by hand: SET+EVALSHA", fl.Client, "SET NX PX · EVALSHA (2)",
				num(fl.ServerSetEvalUs, "%.1f"),
				num(fl.SetEvalP50us, "%.1f"), num(fl.SetEvalP99us, "%.1f"),
				ratio(*fl.SetEvalP50us, two), ratio(*fl.SetEvalP50us, fl.SetDelP50us), "1.00", rate(*fl.SetEvalP50us),
				num(fl.SetEvalAllocsPerOp, "%.1f"), "–", par, parRatio)
			if fx := fl.SetEvalFixedP50us; fx != nil {
				locks.add("by hand, one fixed token", fl.Client, "SET NX PX · EVALSHA (2)",
					num(fl.ServerSetEvalFixedUs, "%.1f"), fmt.Sprintf("%.1f", *fx), "–",
					ratio(*fx, two), ratio(*fx, fl.SetDelP50us), ratio(*fx, *fl.SetEvalP50us), rate(*fx),
					num(fl.SetEvalFixedAllocsPerOp, "%.1f"), "–", "–", "–")
			}
			if a := fl.AdapterSetEvalP50us; a != nil {
				locks.add("by hand via adapter", fl.Client, "SET NX PX · EVALSHA (2)", "–",
					fmt.Sprintf("%.1f", *a), num(fl.AdapterSetEvalP99us, "%.1f"),
					ratio(*a, two), ratio(*a, fl.SetDelP50us), ratio(*a, *fl.SetEvalP50us), rate(*a),
					"–", "–", "–", "–")
			}
		}
	}

	contended = rep.contendedTable()

	targets = &table{
		head:  []string{"", "target", "got", "spread (rounds)", "want", "detail"},
		right: []bool{false, false, true, true, false, false},
	}
	for _, t := range rep.Targets {
		got, sp := "–", "–"
		if t.Note != notMeasured && t.Note != targetsNotifyMissing {
			got = t.GotText()
			sp = t.SpreadText()
		}
		targets.add(Mark(t.Met), t.Name, got, sp, t.Want, t.Note)
	}

	server = &table{
		head:  []string{"command", "calls", "µs per call"},
		right: []bool{false, true, true},
	}
	for _, cmd := range rep.serverCommands() {
		v := "–"
		if u, ok := rep.ServerUsecPerCall[cmd]; ok {
			v = fmt.Sprintf("%.2f", u)
		}
		server.add(strings.ToUpper(cmd), fmt.Sprint(rep.ServerCalls[cmd]), v)
	}
	return locks, contended, targets, server
}

// serverCommands lists the commands of ServerCalls: the usual ones first,
// then any other the run sent.
func (rep *Report) serverCommands() []string {
	var cmds []string
	for _, cmd := range ServerCommands {
		if _, ok := rep.ServerCalls[cmd]; ok {
			cmds = append(cmds, cmd)
		}
	}
	for _, cmd := range slices.Sorted(maps.Keys(rep.ServerCalls)) {
		if !slices.Contains(cmds, cmd) {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// WriteText prints the report as aligned text tables.
func (rep *Report) WriteText(w io.Writer) {
	locks, contended, targets, server := rep.tables()
	fmt.Fprintf(w, "Redis %s (%s), %s, %s, %d CPUs, %s\n", rep.RedisVersion, rep.RedisKind, rep.GoVersion, rep.OS, rep.CPUs, rep.When.Format("2006-01-02 15:04 MST"))
	for _, fl := range rep.Floors {
		ctx := ""
		if fl.PingContextP50us != nil {
			ctx = fmt.Sprintf(" (%.1fµs through redis.DoContext)", *fl.PingContextP50us)
		}
		fmt.Fprintf(w, "PING %-8s p50 %.1fµs p99 %.1fµs%s; PING+PING timed as one sample p50 %.1fµs\n",
			fl.Client, fl.PingP50us, fl.PingP99us, ctx, fl.TwoPingP50us)
	}
	fmt.Fprintf(w, "\nUncontended acquire + release (%d cycles, one connection) and %d goroutines on %d keys:\n\n", rep.Settings.Iterations, rep.Settings.Goroutines, rep.Settings.Goroutines)
	locks.text(w)
	fmt.Fprintln(w, "server µs: time Redis spent running the commands of one cycle (INFO commandstats), in chunks of 100 cycles taking turns")
	if len(rep.ServerCalls) > 0 {
		fmt.Fprintf(w, "\nServer time per command over the uncontended cycles, every lock and floor taking turns (INFO commandstats;\nGET, DEL, SET and PUBLISH include the calls of Lua scripts, whose time is in EVALSHA's too):\n\n")
		server.text(w)
	}
	if len(rep.Contended) > 0 {
		fmt.Fprintf(w, "\nWaiters on one key, empty critical sections, %d rounds of %.1fs per lock and count, taking turns;\n"+
			"median (lowest–highest round); \"no difference measured\" where the rounds of the two overlap:\n\n",
			rep.Settings.Rounds, rep.Settings.ContendedS/float64(max(rep.Settings.Rounds, 1)))
		contended.text(w)
	}
	if len(rep.Sweep) > 0 {
		fmt.Fprintf(w, "\nThe peers' retry delays, swept at each count of waiters (%d rounds of %.2fs each; ← the delay chosen,\n"+
			"the one with the most critical sections per second):\n\n", rep.Settings.Rounds, rep.Settings.SweepS/float64(max(rep.Settings.Rounds, 1)))
		rep.sweepTable().text(w)
	}
	if len(rep.SameClient) > 0 {
		fmt.Fprintf(w, "\nThe same client: pairs/s, each goroutine on a key of its own, %d rounds of %.1fs in a shuffled order;\n"+
			"\"no difference measured\" where the rounds of the two overlap:\n\n", rep.Settings.SameClientRounds, rep.Settings.SameClientS)
		rep.sameClientTable().text(w)
	}
	if len(rep.Libraries) > 0 {
		fmt.Fprintf(w, "\nLibraries beside luatoken on the same client: per second, uncontended (pairs, each goroutine on a key of its own)\n"+
			"and hand-off (critical sections, %d waiters and a holder on one key), %d rounds of %.1fs in a shuffled order:\n\n",
			LibraryWaiters, rep.Settings.SameClientRounds, rep.Settings.SameClientS)
		rep.libraryTable().text(w)
	}
	if len(rep.Kinds) > 0 {
		fmt.Fprintf(w, "\nRead-write locks and semaphores on one redigo pool, %d rounds, the rows in a shuffled order;\n"+
			"median (lowest–highest round); \"no difference measured\" where the rounds of the two overlap.\n\n", rep.Settings.KindsRounds)
		rep.writeKinds(w, false)
	}
	if len(rep.Redlock) > 0 {
		fmt.Fprintf(w, "\nRedlock over %d masters: pairs/s, each goroutine on a key of its own, %d rounds of %.1fs in a shuffled order:\n\n",
			RedlockMasters, rep.Settings.SameClientRounds, rep.Settings.SameClientS)
		rep.redlockTable().text(w)
	}
	if len(rep.Diagnostics) > 0 {
		fmt.Fprintln(w, "\nDiagnostics:")
		for _, d := range rep.Diagnostics {
			fmt.Fprintf(w, "  %s: %.1f %s\n", d.Name, d.Value, d.Unit)
		}
	}
	if rep.Suite != nil {
		fmt.Fprintf(w, "\nThe suite's own speed (Timing Short %dms, Long %dms, Slack %dms, Poll %dms); the floor is the TTL waits\n"+
			"each check must sleep for the verdict it reached (held: how many columns hold the property):\n\n", rep.Suite.ShortMs, rep.Suite.LongMs, rep.Suite.SlackMs, rep.Suite.PollMs)
		rep.Suite.write(w, false)
	}
	fmt.Fprintln(w, "\nTargets:")
	fmt.Fprintln(w)
	targets.text(w)
}

// WriteMarkdown prints the report's tables in Markdown.
func (rep *Report) WriteMarkdown(w io.Writer) {
	locks, contended, targets, server := rep.tables()
	locks.markdown(w)
	fmt.Fprintln(w)
	if len(rep.ServerCalls) > 0 {
		server.markdown(w)
		fmt.Fprintln(w)
	}
	if len(rep.Contended) > 0 {
		contended.markdown(w)
		fmt.Fprintln(w)
	}
	if len(rep.Sweep) > 0 {
		rep.sweepTable().markdown(w)
		fmt.Fprintln(w)
	}
	if len(rep.SameClient) > 0 {
		rep.sameClientTable().markdown(w)
		fmt.Fprintln(w)
	}
	if len(rep.Libraries) > 0 {
		rep.libraryTable().markdown(w)
		fmt.Fprintln(w)
	}
	if len(rep.Kinds) > 0 {
		rep.writeKinds(w, true)
	}
	if len(rep.Redlock) > 0 {
		rep.redlockTable().markdown(w)
		fmt.Fprintln(w)
	}
	if rep.Suite != nil {
		rep.Suite.write(w, true)
		fmt.Fprintln(w)
	}
	targets.markdown(w)
}

// notifyOn names the subject that waits woken on release on the client
// kind: the lock the contended table compares the others with.
func notifyOn(client string) string {
	if client == ClientRedigo {
		return NotifyName
	}
	return luatokenOn(client)
}

// contendedOf returns the row of the contended figure, or nil.
func (rep *Report) contendedOf(subject, wait string, waiters int) *ContendedRow {
	for i := range rep.Contended {
		c := &rep.Contended[i]
		if c.Subject == subject && c.Wait == wait && c.Waiters == waiters {
			return c
		}
	}
	return nil
}

// contendedTable lays the contended figure out: per count of waiters,
// each lock and waiting mode with its spreads, and its hand-off and
// throughput against luatoken woken on release on the same client.
func (rep *Report) contendedTable() *table {
	t := &table{
		head: []string{"waiters", "lock · waiting", "client", "critical sections/s", "hand-off p50 µs", "hand-off p99 µs",
			"commands per CS", "server calls per CS", "gave up", "p50 against woken on release", "CS/s against it"},
		right: []bool{true, false, false, true, true, true, true, true, true, true, true},
	}
	for i := range rep.Contended {
		c := &rep.Contended[i]
		name := c.Name()
		if c.Best {
			name += " (swept best)"
		}
		gave := fmt.Sprint(c.GaveUp)
		if c.Violations > 0 {
			gave += fmt.Sprintf(" (%d overlaps!)", c.Violations)
		}
		vsP50, vsCS := "–", "–"
		if ref := rep.contendedOf(notifyOn(c.Client), WaitNotify, c.Waiters); ref != nil && ref != c {
			vsP50, vsCS = spreadRatio(c.HandoffP50us, ref.HandoffP50us), spreadRatio(c.CSPerS, ref.CSPerS)
		}
		t.add(fmt.Sprint(c.Waiters), name, c.Client, c.CSPerS.Text("%.0f"), c.HandoffP50us.Text("%.0f"), c.HandoffP99us.Text("%.0f"),
			c.CommandsPerCS.Text("%.1f"), c.ServerCallsPerCS.Text("%.1f"), gave, vsP50, vsCS)
	}
	return t
}

// sweepTable lays the sweep out, the chosen delays marked.
func (rep *Report) sweepTable() *table {
	t := &table{
		head:  []string{"waiters", "peer", "retry delay", "critical sections/s", "hand-off p50 µs", "commands per CS", "kept"},
		right: []bool{true, false, true, true, true, true, false},
	}
	for i := range rep.Sweep {
		p := &rep.Sweep[i]
		mark := ""
		if p.Chosen {
			mark = "←"
		}
		t.add(fmt.Sprint(p.Waiters), p.Subject, fmt.Sprintf("%gms", p.DelayMs), p.CSPerS.Text("%.0f"),
			p.HandoffP50us.Text("%.0f"), p.CommandsPerCS.Text("%.1f"), mark)
	}
	return t
}
