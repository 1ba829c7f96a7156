package bench

import "testing"

func TestParseCommandStats(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_set:calls=10,usec=25,usec_per_call=2.50,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_config|get:calls=1,usec=7,usec_per_call=7.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_evalsha:calls=4,usec=40,usec_per_call=10.00,rejected_calls=1,failed_calls=0\r\n"
	got := parseCommandStats(info)
	want := map[string]cmdStat{"set": {10, 25}, "config|get": {1, 7}, "evalsha": {4, 40}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %+v, want %+v", k, got[k], v)
		}
	}
	d := statsDelta(map[string]cmdStat{"set": {4, 10}, "evalsha": {4, 40}}, got)
	if len(d) != 2 || d["set"] != (cmdStat{6, 15}) || d["config|get"] != (cmdStat{1, 7}) {
		t.Errorf("delta: %v", d)
	}
}
