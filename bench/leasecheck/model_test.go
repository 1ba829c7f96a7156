package leasecheck

import (
	"testing"
	"time"
)

const ms = time.Millisecond

// op is an operation of client c, from call to ret in milliseconds.
func op(c string, k Kind, out Outcome, call, ret, ttl time.Duration) Op {
	return Op{Client: c, Kind: k, Outcome: out, Call: call * ms, Return: ret * ms, TTL: ttl * ms}
}

func TestModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []Op
		want string // "legal", or what makes it illegal
	}{
		{"two grants, no release", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("B", Acquire, OK, 5, 6, 1000),
		}, TwoHolders},
		{"concurrent grants", []Op{
			op("A", Acquire, OK, 0, 10, 1000),
			op("B", Acquire, OK, 0, 10, 1000),
		}, TwoHolders},
		{"a grant after the release", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("A", Release, OK, 2, 3, 0),
			op("B", Acquire, OK, 4, 5, 1000),
		}, "legal"},
		{"a grant that may follow a concurrent release", []Op{
			op("A", Acquire, OK, 0, 10, 100),
			op("B", Acquire, Refused, 5, 8, 100),
			op("A", Release, OK, 20, 25, 0),
			op("B", Acquire, OK, 22, 30, 100),
		}, "legal"},
		{"a grant once the lease certainly ended", []Op{
			op("A", Acquire, OK, 0, 10, 100),
			op("B", Acquire, OK, 90, 105, 100), // may take effect at 100
		}, "legal"},
		{"a grant that returned before the lease could end", []Op{
			op("A", Acquire, OK, 0, 10, 100),
			op("B", Acquire, OK, 90, 99, 100),
		}, TwoHolders},
		{"a grant after a release of unknown outcome", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("A", Release, Unknown, 2, 3, 0),
			op("B", Acquire, OK, 4, 5, 1000),
		}, "legal"},
		{"a grant after a release that never returned", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("A", Release, Unknown, 2, Never/ms, 0),
			op("B", Acquire, OK, 10, 11, 1000),
		}, "legal"},
		{"a grant after another client's release", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("C", Release, OK, 2, 3, 0),
			op("B", Acquire, OK, 4, 5, 1000),
		}, TwoHolders},
		{"a refusal while the lease may stand", []Op{
			op("A", Acquire, OK, 0, 10, 100),
			op("B", Acquire, Refused, 105, 112, 100), // before 10+100+tol
		}, "legal"},
		{"a refusal once no lease can stand", []Op{
			op("A", Acquire, OK, 0, 10, 100),
			op("B", Acquire, Refused, 120, 121, 100),
		}, FreeRefused},
		{"a refusal of a lock never granted", []Op{
			op("B", Acquire, Refused, 0, 1, 100),
		}, FreeRefused},
		{"a refusal after the release", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("A", Release, OK, 2, 3, 0),
			op("B", Acquire, Refused, 4, 5, 1000),
		}, FreeRefused},
		{"a refusal that may precede the release", []Op{
			op("A", Acquire, OK, 0, 1, 1000),
			op("A", Release, OK, 2, 6, 0),
			op("B", Acquire, Refused, 4, 5, 1000),
		}, "legal"},
		{"a refusal after a release that a later grant pins down", []Op{
			op("A", Acquire, OK, 0, 10, 10000),
			op("A", Release, OK, 20, 120, 0),     // could take effect until 120...
			op("D", Acquire, OK, 50, 100, 10000), // ...but D's grant puts it before 100
			op("D", Release, OK, 100, 110, 0),
			op("C", Acquire, Refused, 115, 120, 10000),
		}, FreeRefused},
		{"a refusal after an acquire of unknown outcome", []Op{
			op("A", Acquire, Unknown, 0, 1, 1000),
			op("B", Acquire, Refused, 4, 5, 1000),
		}, "legal"},
		{"a grant after an acquire of unknown outcome", []Op{
			op("A", Acquire, Unknown, 0, 1, 1000),
			op("B", Acquire, OK, 4, 5, 1000),
		}, "legal"},
		{"a refusal after a lease without expiry", []Op{
			op("A", Acquire, OK, 0, 1, 0),
			op("B", Acquire, Refused, 5000, 5001, 100),
		}, "legal"},
		{"a refresh keeps the lease", []Op{
			op("A", Acquire, OK, 0, 1, 100),
			op("A", Refresh, OK, 50, 51, 100),
			op("B", Acquire, OK, 120, 121, 100),
		}, TwoHolders},
		{"a refresh may shorten the lease", []Op{
			op("A", Acquire, OK, 0, 1, 300),
			op("A", Refresh, OK, 2, 3, 60),
			op("B", Acquire, OK, 62, 64, 60),
		}, "legal"},
		{"a refresh may keep the longer lease", []Op{
			op("A", Acquire, OK, 0, 1, 300),
			op("A", Refresh, OK, 2, 3, 60),
			op("B", Acquire, Refused, 100, 101, 60),
		}, "legal"},
		{"a refresh of a lease that is gone", []Op{
			op("A", Acquire, OK, 0, 1, 100),
			op("A", Refresh, OK, 500, 501, 100),
		}, TwoHolders},
		{"two inside", []Op{
			op("A", Enter, OK, 1, 1, 0),
			op("B", Enter, OK, 2, 2, 0),
			op("A", Leave, OK, 3, 3, 0),
		}, TwoInside},
		{"one inside at a time", []Op{
			op("A", Enter, OK, 1, 1, 0),
			op("A", Leave, OK, 2, 2, 0),
			op("B", Enter, OK, 3, 3, 0),
		}, "legal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Check(History{Ops: tc.ops, Tol: 2 * ms}, time.Minute)
			got := "legal"
			if !v.Legal {
				got = v.Broken
			}
			if v.Unknown || got != tc.want {
				t.Errorf("Check = %v, want %s", v, tc.want)
			}
		})
	}
}

// TestModelHolds: two holds of one client are told apart by Hold. A
// release of the first, after the second was granted, frees nothing.
func TestModelHolds(t *testing.T) {
	hold := func(o Op, h int) Op { o.Hold = h; return o }
	ops := []Op{
		hold(op("A", Acquire, OK, 0, 1, 1000), 1),
		hold(op("A", Release, OK, 2, 3, 0), 1),
		hold(op("A", Acquire, OK, 4, 5, 1000), 2),
		hold(op("A", Release, OK, 6, 7, 0), 1),
		op("B", Acquire, Refused, 8, 9, 1000),
	}
	if v := Check(History{Ops: ops, Tol: 2 * ms}, time.Minute); !v.Legal {
		t.Errorf("Check = %v, want legal", v)
	}
	ops[3].Hold = 2 // the second hold's own release: B's refusal is now of a free lock
	if v := Check(History{Ops: ops, Tol: 2 * ms}, time.Minute); v.Legal || v.Broken != FreeRefused {
		t.Errorf("with the second hold released, Check = %v, want illegal (%s)", v, FreeRefused)
	}
}
