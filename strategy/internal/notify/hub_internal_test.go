package notify

import "testing"

// A release's message wakes as many waiters as it says, those waiting
// longest first; a message of another form wakes one.
func TestWakeFor(t *testing.T) {
	for _, c := range []struct {
		payload string
		want    []bool // woken, by place in line
	}{
		{"orders:42", []bool{true, false, false, false}},
		{WakeAll, []bool{true, true, true, true}},
		{WakePrefix + "2", []bool{true, true, false, false}},
		{WakePrefix + "9", []bool{true, true, true, true}},
		{WakePrefix + "x", []bool{true, false, false, false}},
		{WakePrefix + "-3", []bool{true, false, false, false}},
	} {
		ch := &channel{waiters: make(map[*waiter]struct{})}
		ws := make([]*waiter, len(c.want))
		for i := range ws {
			ws[i] = &waiter{c: make(chan struct{}, 1), place: uint64(i + 1)}
			ch.waiters[ws[i]] = struct{}{}
		}
		ch.wakeFor(c.payload)
		for i, w := range ws {
			if got := len(w.c) == 1; got != c.want[i] {
				t.Errorf("wakeFor(%q): waiter %d woken = %v, want %v", c.payload, i+1, got, c.want[i])
			}
		}
	}
}
