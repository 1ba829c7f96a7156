package servererr

import (
	"maps"
	"testing"
)

func TestShebangFlags(t *testing.T) {
	cases := []struct {
		body  string
		flags scriptFlag
		ok    bool
	}{
		{"return 1", 0, false},
		{"#!lua\nreturn 1", 0, true},
		{"#!lua flags=no-writes,allow-stale\nreturn 1", noWrites | allowStale, true},
		{"#!lua flags=\nreturn 1", 0, true},
		{"#!lua flags=no-such\nreturn 1", 0, false},
		{"#!python\nreturn 1", 0, false},
		{"#!lua", 0, false},
	}
	for _, c := range cases {
		if f, ok := shebangFlags(c.body); f != c.flags || ok != c.ok {
			t.Errorf("shebangFlags(%q) = %v, %v, wanted %v, %v", c.body, f, ok, c.flags, c.ok)
		}
	}
}

func TestMayWrite(t *testing.T) {
	cases := []struct {
		body   string
		writes bool
	}{
		{releaseLua, true},
		{semLua, true},
		{"local v = redis.call('GET', KEYS[1])\nif not v then\n  redis.pcall(\"HSET\", KEYS[1], 'f', 1)\nend", true},
		{"return redis.call(ARGV[1], KEYS[1])", true},
		{"return redis.call('hincrbyfloat', KEYS[1], 'f', 1)", true},
		{"return redis.call('get', KEYS[1])", false},
		{"return redis.call('time')", false},
		{"return 1", false},
	}
	for _, c := range cases {
		if got := mayWrite(c.body); got != c.writes {
			t.Errorf("mayWrite(%q) = %v, wanted %v", c.body, got, c.writes)
		}
	}
}

func TestParseLibrary(t *testing.T) {
	code := library + "\nredis.register_function(\"two\", function() return 2 end)" +
		"\nredis.register_function({function_name=\"three\", callback=function() return 3 end, flags={\"allow-oom\", 'allow-stale'}})"
	want := map[string]scriptFlag{"lockset": 0, "lockget": noWrites, "two": 0, "three": allowOOM | allowStale}
	if got := parseLibrary(code); !maps.Equal(got, want) {
		t.Errorf("parseLibrary = %v, wanted %v", got, want)
	}
}
