package bench

import (
	"strings"
	"testing"
	"time"
)

// TestLibraryTable: the libraries figure prints one line per row, with
// its case, its median and its spread.
func TestLibraryTable(t *testing.T) {
	rep := &Report{Libraries: []LibraryRow{
		{Client: ClientRueidis, Name: RueidislockKM1, Goroutines: 16, Median: 1500, Min: 1000, Max: 2000},
		{Client: ClientGoRedis, Name: GoZero, Waiters: 8, Wait: goZeroWait, Median: 150, Min: 100, Max: 200},
	}}
	var b strings.Builder
	rep.WriteText(&b)
	out := b.String()
	for _, want := range []string{"uncontended, 16 goroutine(s)", "1500 (1000–2000)", "hand-off, 8 waiters", "150 (100–200)", goZeroWait} {
		if !strings.Contains(out, want) {
			t.Errorf("the table has no %q:\n%s", want, out)
		}
	}
}

// TestReplaceBlocks: lockbench -doc rewrites the libraries block with the
// run's conditions and table, leaves the rest of the page as it is, and
// refuses a page without the block.
func TestReplaceBlocks(t *testing.T) {
	rep := &Report{
		GoVersion: "go1.26.0", RedisVersion: "7.0.15", RedisKind: "process", OS: "linux/amd64", CPUs: 2,
		Load:     &Load{Start: 3.5, End: 4.25},
		Settings: Settings{SameClientRounds: 5, SameClientS: 0.3},
		Libraries: []LibraryRow{
			{Client: ClientRueidis, Name: RueidislockKM1, Goroutines: 16, Median: 1500, Min: 1000, Max: 2000},
		},
	}
	doc := "before\n" + librariesBegin + "\nold figures\n" + librariesEnd + "\nafter\n"
	out, err := rep.ReplaceBlocks([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"before\n" + librariesBegin + "\n", librariesEnd + "\nafter\n", "2 CPUs", "load average 3.50 when it began and 4.25 when it ended", "go1.26.0", "Redis 7.0.15", "| 1500 (1000–2000) |", "5 rounds of 0.3 s"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page has no %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "old figures") {
		t.Errorf("the old block is still there:\n%s", got)
	}
	if _, err := rep.ReplaceBlocks([]byte("no block\n")); err == nil {
		t.Error("a page without the block: no error")
	}
	if _, err := rep.ReplaceBlocks([]byte(librariesBegin + "\nno end\n")); err == nil {
		t.Error("a block without its end: no error")
	}
}

// TestReplaceKindsBlock: a run of the kinds figure alone rewrites its
// block and leaves the libraries block as it was.
func TestReplaceKindsBlock(t *testing.T) {
	sp := func(v ...float64) *Spread { s := spreadOf(v); return &s }
	rep := &Report{
		GoVersion: "go1.26.0", RedisVersion: "7.0.15", RedisKind: "process", OS: "linux/amd64", CPUs: 2,
		Load:     &Load{Start: 3.5, End: 4.25},
		Settings: Settings{KindsRounds: 3, KindsCycles: 300, KindsS: 0.6},
		Kinds: []KindsRow{
			{Kind: "read-write", Name: "rwlua", Case: KindsWriter, Wait: WaitFixed, CycleUs: sp(100, 110, 120)},
			{Kind: "read-write", Name: "hashrwlock", Case: KindsWriter, Wait: WaitFixed, CycleUs: sp(200, 210, 220)},
			{Kind: "read-write", Name: "hashrwlock", Case: KindsReadersW, Wait: WaitFixed,
				ReadsPerS: sp(900, 1000, 1100), WritesPerS: sp(0, 0, 1), WriterWaitUs: sp(600000, 600000, 50), Starved: 2},
			{Kind: "semaphore", Name: "semlua", Case: KindsPermitsN, Wait: WaitFixed, CSPerS: sp(500, 600, 700), HandoffUs: sp(80, 90, 100),
				AttemptsPerLock: sp(1.1, 1.15, 1.2), ServerUsPerLock: sp(30, 35, 40)},
			{Kind: "semaphore", Name: "countersemaphore", Case: KindsPermitsN, Wait: WaitFixed, CSPerS: sp(550, 650, 750), HandoffUs: sp(80, 90, 100), Overlaps: 3},
		},
	}
	lib := librariesBegin + "\nlibraries as they were\n" + librariesEnd + "\n"
	doc := "before\n" + lib + kindsBegin + "\nold figures\n" + kindsEnd + "\nafter\n"
	out, err := rep.ReplaceBlocks([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{lib, kindsEnd + "\nafter\n", "load average 3.50", "| hashrwlock | uncontended, writer | 210 (200–220) | 1.91× |",
		"| 2 of 3 |", "no difference measured | 90 (80–100) | 3 | – | – |", "| 90 (80–100) | 0 | 1.15 (1.10–1.20) | 35.0 (30.0–40.0) |",
		"attempts per lock", "3 rounds"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page has no %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "old figures") {
		t.Errorf("the old block is still there:\n%s", got)
	}
	if _, err := rep.ReplaceBlocks([]byte(lib)); err == nil {
		t.Error("a page without the kinds block: no error")
	}
}

// TestPermitLog: each given-back permit is matched with the next acquire
// in order, the free permits of the start with none, and an acquire that
// comes back before the release that freed its permit is a hand-off of
// no time.
func TestPermitLog(t *testing.T) {
	now := time.Now()
	p := &permitLog{free: 1, w: window{now.Add(-time.Hour), now.Add(time.Hour)}}
	p.acquired() // the free permit
	p.released()
	time.Sleep(2 * time.Millisecond)
	p.acquired() // takes the released permit, 2ms later
	p.acquired() // before its release is recorded
	p.released()
	if len(p.gaps) != 2 || p.gaps[0] < 2*time.Millisecond || p.gaps[1] != 0 {
		t.Errorf("hand-offs %v, want one of at least 2ms, then one of none", p.gaps)
	}
	if p.free != 0 || p.early != 0 || len(p.rel) != 0 {
		t.Errorf("left free %d, early %d, releases %d; want none", p.free, p.early, len(p.rel))
	}
}
