package judge_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/locklab/locklab/locktest/internal/judge"
)

func TestTmpProbe(t *testing.T) {
	for _, c := range []struct {
		f      string
		intent time.Duration
	}{{"/tmp/saves10k/variant-rw-writers-first.json", 500 * time.Millisecond}, {"/tmp/saves10k/variant-rw-readers-first.json", 0}} {
		b, _ := os.ReadFile(c.f)
		var r struct {
			Timeline []json.RawMessage `json:"timeline"`
		}
		_ = r
		var rec recorded
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		d, found := judge.Free(rec.Timeline, judge.Options{Slack: 60 * time.Millisecond, Quick: 30 * time.Millisecond, WriterIntent: c.intent, Late: 120 * time.Millisecond})
		t.Logf("%s: %v %s event %d", c.f, found, d.Reason, d.Event)
	}
}
