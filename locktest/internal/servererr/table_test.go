package servererr

import (
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestTableMatchesServer reads each command's flags with COMMAND INFO on
// a real server and fails where the table says otherwise for the
// server's version, or where one has a command the other lacks. Flags
// the package does not know (may_replicate, module...) are not compared.
func TestTableMatchesServer(t *testing.T) {
	srv := redistest.Shared(t)
	v, err := ParseVersion(srv.Version)
	if err != nil {
		t.Fatal(err)
	}
	c := redistest.Pool(t).Get()
	defer c.Close()
	names := map[string]bool{}
	for name := range table {
		names[name] = true
	}
	for _, ch := range changes {
		names[ch.name] = true
	}
	for name := range names {
		want, has := entries[name].at(v)
		reply, err := redis.Values(c.Do("COMMAND", "INFO", name))
		if err != nil {
			t.Fatalf("COMMAND INFO %s: %v", name, err)
		}
		if len(reply) != 1 || reply[0] == nil {
			if has {
				t.Errorf("%s: the server does not know it, the table has %s on %s", name, want, srv.Version)
			}
			continue
		}
		if !has {
			t.Errorf("%s: the server knows it, the table not on %s", name, srv.Version)
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
