package servererr

import (
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestTableMatchesServer reads each command's flags with COMMAND INFO on
// a real server and fails where the table says otherwise. Flags the
// package does not know (may_replicate, module...) are not compared; a
// command the server lacks (client|setinfo before 7.2) is skipped.
func TestTableMatchesServer(t *testing.T) {
	c := redistest.Pool(t).Get()
	defer c.Close()
	for name, want := range table {
		reply, err := redis.Values(c.Do("COMMAND", "INFO", name))
		if err != nil {
			t.Fatalf("COMMAND INFO %s: %v", name, err)
		}
		if len(reply) != 1 || reply[0] == nil {
			t.Logf("%s: the server does not know it", name)
			continue
		}
		info, err := redis.Values(reply[0], nil)
		if err != nil || len(info) < 3 {
			t.Fatalf("COMMAND INFO %s = %v, %v, wanted an entry of at least 3 fields", name, reply[0], err)
		}
		names, err := redis.Strings(info[2], nil)
		if err != nil {
			t.Fatalf("COMMAND INFO %s: flags %v: %v", name, info[2], err)
		}
		var got Flag
		for _, n := range names {
			if f, ok := ParseFlag(n); ok {
				got |= f
			}
		}
		if got != want {
			t.Errorf("%s: COMMAND INFO flags = %q, the table has %q", name, got, want)
		}
	}
}
