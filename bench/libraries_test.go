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
