package leasecheck

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable writes rows as a table, one line each, then the totals.
func WriteTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tproperty\thistories\toperations\tporcupine\tjudge\tagree?\ttime")
	var hs, ops, agree, compared int
	var total time.Duration
	for _, r := range rows {
		judge := string(r.Judge)
		if r.Rejudged != "" && r.Rejudged != r.Judge {
			judge += fmt.Sprintf(" (saved: %s)", r.Rejudged)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.Strategy, r.Property, r.Histories, r.Ops,
			r.Porcupine, judge, r.Agree(), r.Elapsed.Round(10*time.Microsecond))
		hs, ops, total = hs+r.Histories, ops+r.Ops, total+r.Elapsed
		switch r.Agree() {
		case "yes":
			agree, compared = agree+1, compared+1
		case "no":
			compared++
		}
	}
	fmt.Fprintf(tw, "total\t%d rows\t%d\t%d\t\t\t%d of %d\t%s\n", len(rows), hs, ops, agree, compared, total.Round(time.Millisecond))
	return tw.Flush()
}
