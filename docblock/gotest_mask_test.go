package docblock

import "testing"

// TestGoTestMasks: two runs of a go test whose timelines differ only in
// their times, and so in the padding that right-aligns them, mask alike;
// a line whose words differ does not.
func TestGoTestMasks(t *testing.T) {
	mask := func(l string) string {
		for _, m := range goTestMasks {
			l = m.re.ReplaceAllString(l, m.with)
		}
		return l
	}
	a := mask("                 0.6ms B SET K QUL6DSZMLCAS3UNIC5VFL5FY6D NX PX 5000 -> (nil)")
	b := mask("                  0.6ms B SET K P7SIYWOQK7SROMTADPKYQL2XCQ NX PX 5000 -> (nil)")
	if a != b {
		t.Errorf("same line, other padding: %q != %q", a, b)
	}
	if c := mask("                 0.6ms B SET K QUL6DSZMLCAS3UNIC5VFL5FY6D NX PX 5000 -> OK"); c == a {
		t.Errorf("another reply masked the same: %q", c)
	}
	if got := mask("--- FAIL: TestDraft (1.52s)"); got != "--- FAIL: TestDraft (Δ)" {
		t.Errorf("a test's time: %q", got)
	}
}
