// Command lockporcupine checks the histories of the conformance suite's
// runs with porcupine, against a lease-lock model of its own (package
// leasecheck), and prints, for each strategy and property, how many
// histories and operations it decided, its verdict beside the suite's
// judge's, whether they agree, and the time porcupine took.
//
// Usage, from the bench directory:
//
//	go run ./cmd/lockporcupine [-strategy a,b] [-property a,b|all] [-timeout d] [-v] [-lines n] [-save file]
//
// The server comes from redistest.Start: REDIS_ADDR or REDIS_URL, else a
// Docker container, else a private redis-server process
// (LOCKLAB_REDIS=process forces the last). Under the table it says, for
// each row where porcupine rejects a history (with -v, for every row),
// the judge's reason, the keys of the histories porcupine rejects and
// the shortest illegal prefix of the first. It exits with status 1 when porcupine and
// the judge disagree on any row.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/locklab/locklab/bench/leasecheck"
	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lockporcupine:", err)
		os.Exit(1)
	}
}

func run() error {
	strategies := flag.String("strategy", "", "check only these `strategies` (comma-separated; all the catalog's by default)")
	properties := flag.String("property", "", "check these `properties` (comma-separated, or all: every property on one Redis; default: exclusion, holder-overrun, safe-release, double-release, crash-recovery)")
	timeout := flag.Duration("timeout", time.Minute, "the most porcupine may take on one history")
	verbose := flag.Bool("v", false, "print the keys of the illegal histories and the judge's reasons")
	save := flag.String("save", "", "write every history porcupine rejects, whole, one operation a line, to `FILE`")
	lines := flag.Int("lines", 12, "print the last `N` operations of a rejected history's shortest illegal prefix")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv, err := redistest.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintln(os.Stderr, "lockporcupine: on", srv)

	entries := leasecheck.Strategies()
	if *strategies != "" {
		names := strings.Split(*strategies, ",")
		entries = slices.DeleteFunc(entries, func(e catalog.Entry) bool { return !slices.Contains(names, e.Name) })
		if len(entries) == 0 {
			return fmt.Errorf("no strategy of the catalog is named in %q", *strategies)
		}
	}
	props := leasecheck.Properties()
	switch *properties {
	case "":
	case "all":
		props = locktest.Properties()
	default:
		props = nil
		for _, s := range strings.Split(*properties, ",") {
			p, err := locktest.ParseProperty(s)
			if err != nil {
				return err
			}
			props = append(props, p)
		}
	}
	cfg := locktest.Config{Addr: srv.Addr, Username: srv.Login.Username, Password: srv.Login.Password, DB: srv.Login.DB, TLS: srv.Login.TLS,
		Key: fmt.Sprintf("lockporcupine:%d", time.Now().UnixNano())}
	var rows []leasecheck.Row
	for _, e := range entries {
		for _, p := range props {
			r := leasecheck.CheckProperty(ctx, cfg, e, p, *timeout)
			fmt.Fprintf(os.Stderr, "%-18s %-15s %-7s %s\n", r.Strategy, r.Property, r.Judge, r.Porcupine)
			rows = append(rows, r)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	if err := leasecheck.WriteTable(os.Stdout, rows); err != nil {
		return err
	}
	if *save != "" {
		if err := saveRejected(*save, rows); err != nil {
			return err
		}
	}
	disagree, unfaithful := 0, 0
	for _, r := range rows {
		// A run the judge calls n/a, which porcupine rejects, is worth a
		// look too: the lock did something no lease lock does.
		if *verbose || r.Agree() == "no" || r.Err != nil || !r.Porcupine.Legal {
			fmt.Printf("\n%s %s: judge %s: %s\n", r.Strategy, r.Property, r.Judge, r.Reason)
			if r.Err != nil {
				fmt.Printf("  error: %v\n", r.Err)
			}
			if r.Recorded != nil {
				fmt.Printf("  the lock calls of the run that broke: %s as recorded, %s in the suite's timeline\n", r.Recorded, r.Timeline)
			}
			for _, k := range r.Illegal {
				fmt.Printf("  illegal: %s\n", k)
			}
			if len(r.Witness) > 0 {
				fmt.Printf("  the first one's shortest illegal prefix:\n%s", indent(leasecheck.FormatOps(r.Witness, *lines), "    "))
			}
		}
		if r.Agree() == "no" {
			disagree++
		}
		if !r.Faithful() {
			unfaithful++
		}
	}
	if unfaithful > 0 {
		fmt.Printf("\nthe recorder and the suite's timeline read %d broken runs differently\n", unfaithful)
	}
	if disagree > 0 {
		return fmt.Errorf("porcupine and the judge disagree on %d of %d rows", disagree, len(rows))
	}
	return nil
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// saveRejected writes the histories porcupine rejected in rows to path.
func saveRejected(path string, rows []leasecheck.Row) error {
	var b strings.Builder
	for _, r := range rows {
		for _, h := range r.Rejected {
			fmt.Fprintf(&b, "%s %s: judge %s, porcupine %s: %s (tolerance %s)\n%s\n",
				r.Strategy, r.Property, r.Judge, r.Porcupine, h.Key, h.Tol, leasecheck.FormatOps(h.Ops, len(h.Ops)))
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
