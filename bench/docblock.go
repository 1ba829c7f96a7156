package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// The figures of a run that docs/performance.md shows as they were
// measured sit between two HTML comments, which lockbench -doc rewrites
// from the run (or, with -from, from the run's JSON):
//
//	<!-- lockbench:libraries --> ... <!-- /lockbench:libraries -->
//		the libraries figure;
//	<!-- lockbench:kinds --> ... <!-- /lockbench:kinds -->
//		the kinds figure (read-write locks and semaphores);
//
// each with the date of the run and the machine's conditions: its CPUs,
// its load, Go's and Redis's versions.
const (
	librariesBegin = "<!-- lockbench:libraries -->"
	librariesEnd   = "<!-- /lockbench:libraries -->"
	kindsBegin     = "<!-- lockbench:kinds -->"
	kindsEnd       = "<!-- /lockbench:kinds -->"
)

// docBlock is a block of the page: its markers, whether a report has its
// figure, and how it is written.
type docBlock struct {
	name, begin, end string
	has              func(*Report) bool
	write            func(*Report, io.Writer)
}

var docBlocks = []docBlock{
	{"libraries", librariesBegin, librariesEnd, func(rep *Report) bool { return len(rep.Libraries) > 0 }, (*Report).writeLibrariesBlock},
	{"kinds", kindsBegin, kindsEnd, func(rep *Report) bool { return len(rep.Kinds) > 0 }, (*Report).writeKindsBlock},
}

// Load is the machine's load average over one minute when a run began and
// when it ended (from /proc/loadavg): how busy the machine was besides the
// run.
type Load struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// loadAverage returns the load average over one minute, and false where the
// system does not say (no /proc/loadavg).
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// Conditions says when the run was and on what: the date, the CPUs and
// their load, Go's and Redis's versions.
func (rep *Report) Conditions() string {
	s := fmt.Sprintf("run of %s, %s, %d CPUs", rep.When.UTC().Format("2006-01-02 15:04 MST"), rep.OS, rep.CPUs)
	if rep.Load != nil {
		s += fmt.Sprintf(", load average %.2f when it began and %.2f when it ended", rep.Load.Start, rep.Load.End)
	}
	s += fmt.Sprintf("; %s; Redis %s (%s)", rep.GoVersion, rep.RedisVersion, rep.RedisKind)
	return s
}

// writeLibrariesBlock writes the libraries figure as the block between its
// markers: the run's conditions, its settings, the table.
func (rep *Report) writeLibrariesBlock(w io.Writer) {
	fmt.Fprintf(w, "_From the %s. Per second: uncontended, pairs (acquire + release), each goroutine on a key of its own; "+
		"hand-off, critical sections, %d waiters and a holder on one key. %d rounds of %.1f s each, the rows in a shuffled order, "+
		"each figure the median with the lowest and the highest round._\n\n",
		rep.Conditions(), LibraryWaiters, rep.Settings.SameClientRounds, rep.Settings.SameClientS)
	rep.libraryTable().markdown(w)
}

// writeKindsBlock writes the kinds figure as the block between its
// markers: the run's conditions, its settings, the tables.
func (rep *Report) writeKindsBlock(w io.Writer) {
	fmt.Fprintf(w, "_From the %s. One redigo pool; every waiter tries again every %s (or is woken on release, where it says so). "+
		"%d rounds, the rows in a shuffled order, each figure the median over the rounds with the lowest and the highest round; "+
		"\"against the project's\" is the ratio of medians to rwlua's or semlua's (trying every %s), or \"no difference measured\" where the rounds overlap._\n\n",
		rep.Conditions(), kindsPoll, rep.Settings.KindsRounds, kindsPoll)
	rep.writeKinds(w, true)
}

// ReplaceBlocks returns doc with the blocks that the report has figures
// for written anew; the rest of doc is left as it is. It is an error for
// the report to have figures for none of doc's blocks, or for a marker to
// have no end.
func (rep *Report) ReplaceBlocks(doc []byte) ([]byte, error) {
	wrote := 0
	var names []string
	for _, blk := range docBlocks {
		names = append(names, blk.begin)
		if !blk.has(rep) {
			continue
		}
		begin := bytes.Index(doc, []byte(blk.begin+"\n"))
		if begin < 0 {
			return nil, fmt.Errorf("the run has the %s figure, but no line %s", blk.name, blk.begin)
		}
		body := begin + len(blk.begin) + 1
		end := bytes.Index(doc[body:], []byte(blk.end))
		if end < 0 {
			return nil, fmt.Errorf("%s has no %s after it", blk.begin, blk.end)
		}
		var b bytes.Buffer
		b.Write(doc[:body])
		blk.write(rep, &b)
		b.Write(doc[body+end:])
		doc = b.Bytes()
		wrote++
	}
	if wrote == 0 {
		return nil, fmt.Errorf("the run has no figure for the blocks %s", strings.Join(names, ", "))
	}
	return doc, nil
}
