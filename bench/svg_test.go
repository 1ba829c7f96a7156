package bench

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// sampleReport is a made-up report with every kind of row.
func sampleReport() *Report {
	rep := &Report{
		When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), GoVersion: "go1.x", RedisVersion: "7.0.15", RedisKind: "process",
		CPUs: 2, PingP50us: 20,
		Floors: []Floor{
			{Client: ClientRedigo, PingP50us: 20, PingP99us: 60, TwoPingP50us: 44, AllocsPerOp: 2, BytesPerOp: 48, ParallelOpsPerS: 50000},
			{Client: ClientGoRedis, PingP50us: 21, PingP99us: 61, TwoPingP50us: 45, AllocsPerOp: 12, BytesPerOp: 376, ParallelOpsPerS: 48000, SetEvalP50us: f(45)},
			{Client: ClientRueidis, PingP50us: 20, PingP99us: 60, TwoPingP50us: 41, AllocsPerOp: 2, BytesPerOp: 20, ParallelOpsPerS: 90000, SetEvalP50us: f(40)},
		},
		Settings: Settings{Goroutines: 16, Contenders: 8, ContendedS: 4},
	}
	add := func(name, client string, p50, par, allocs float64) {
		rep.Rows = append(rep.Rows, Row{
			Name: name, Subject: name, Client: client, Cycle: "A · B", CommandsPerOp: f(2),
			UncontendedP50us: f(p50), UncontendedP99us: f(3 * p50), UncontendedOpsPerS: f(1e6 / p50),
			FloorRatio: f(p50 / 40), AllocsPerOp: f(allocs), BytesPerOp: f(allocs * 40),
			ParallelOpsPerS: f(par), ParallelFloorRatio: f(par / 50000),
		})
	}
	add(Locklab, ClientRedigo, 44, 45000, 12)
	add(Redsync, ClientRedigo, 60, 36000, 28)
	add(Redislock, ClientGoRedis, 58, 35000, 33)
	add(NotifyName, ClientRedigo, 120, 20000, 60)
	add(AdapterGoRedis, ClientGoRedis, 46, 30000, 30) // 1.02× by hand; more allocations than redsync
	add(AdapterRueidis, ClientRueidis, 44, 60000, 15) // 1.10× by hand; 1.67× redsync, 1.71× redislock
	for _, name := range Adapters {
		r := rep.Row(name)
		r.HandRatio = f(*r.UncontendedP50us / *rep.Floor(r.Client).SetEvalP50us)
	}
	for _, c := range []struct {
		s, w string
		p50  float64
	}{{Locklab, WaitFixed, 5000}, {Redsync, WaitRedsync, 17000}, {Redislock, WaitRedislock, 100000}, {NotifyName, WaitNotify, 70}} {
		rep.Rows = append(rep.Rows, Row{
			Name: RowName(c.s, c.w), Subject: c.s, Client: ClientRedigo, Wait: c.w,
			ContendedCSPerS: f(1e6 / c.p50), HandoffP50us: f(c.p50), HandoffP99us: f(2 * c.p50), Handoffs: f2i(100),
		})
	}
	rep.Targets = Targets(rep)
	return rep
}

func TestSVGIsWellFormed(t *testing.T) {
	var b strings.Builder
	if err := sampleReport().WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(b.String()))
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// Background, 6 + 6 + 4 bars, 3 legend swatches.
	if rects != 1+16+3 {
		t.Errorf("%d rects, want 20", rects)
	}
	if os.Getenv("BENCH_WRITE_SAMPLE") != "" {
		os.WriteFile(os.Getenv("BENCH_WRITE_SAMPLE"), []byte(b.String()), 0o644)
	}
}

func TestTargets(t *testing.T) {
	rep := sampleReport()
	want := map[string]bool{
		TargetFloor:   true, // 44 / 40
		TargetHandoff: true, // 70 / 20
		"redsync (default retry) hand-off p50 / woken-on-release hand-off p50":   true,
		"redislock (default retry) hand-off p50 / woken-on-release hand-off p50": true,
		TargetAllocs: true,
		"luatoken/go-redis uncontended p50 / its commands by hand through go-redis":       true,
		"luatoken/rueidis uncontended p50 / its commands by hand through rueidis":         false,
		"luatoken/go-redis allocations per acquire + release vs the peers":                false,
		"luatoken/rueidis allocations per acquire + release vs the peers":                 true,
		"luatoken allocations per acquire + release on redigo vs the peers on redigo":     true,
		"luatoken allocations per acquire + release on go-redis vs the peers on go-redis": true,
	}
	if len(rep.Targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(rep.Targets), len(want))
	}
	for _, tg := range rep.Targets {
		if m, ok := want[tg.Name]; !ok || m != tg.Met {
			t.Errorf("%s: met %v (got %.2f, want %s)", tg.Name, tg.Met, tg.Got, tg.Want)
		}
	}
	// Without the notify rows its three targets are missed, not measured.
	var rows []Row
	for _, r := range rep.Rows {
		if r.Subject != NotifyName {
			rows = append(rows, r)
		}
	}
	rep.Rows = rows
	missed := 0
	for _, tg := range Targets(rep) {
		if tg.Note == targetsNotifyMissing {
			missed++
			if tg.Met {
				t.Errorf("%s met without figures", tg.Name)
			}
		}
	}
	if missed != 3 {
		t.Errorf("%d targets noted as missing notify, want 3", missed)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not marshal: %v", err)
	}
}

func TestQuantile(t *testing.T) {
	var d Durations
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50}, {0.99, 99}, {1, 100}, {0, 1}, {0.01, 1}} {
		if got := d.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := (Durations{}).Quantile(0.5); got != 0 {
		t.Errorf("empty Quantile = %v", got)
	}
}

func TestGotText(t *testing.T) {
	for _, c := range []struct {
		got, limit float64
		want       string
	}{{1.195, 1.2, "1.195"}, {1.1999, 1.2, "1.1999"}, {1.2, 1.2, "1.20"}, {1.27, 1.15, "1.27"}, {12, 33, "12.00"}} {
		tg := Target{Got: c.got, Limit: c.limit}
		if s := tg.GotText(); s != c.want {
			t.Errorf("GotText(%v against %v) = %q, want %q", c.got, c.limit, s, c.want)
		}
	}
}
