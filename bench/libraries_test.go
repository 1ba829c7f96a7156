package bench

import (
	"strings"
	"testing"
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
