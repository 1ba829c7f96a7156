package kindmutants

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCorpusShape: every mutant is a variant with exactly one slip, told
// in a line, and declares killers; no two locks share a name.
func TestCorpusShape(t *testing.T) {
	var names []string
	for _, v := range Variants() {
		names = append(names, v.Name)
	}
	for _, m := range Mutants() {
		names = append(names, m.Name)
		if _, ok := LookupVariant(m.Base); !ok {
			t.Errorf("mutant %s: no variant %q", m.Name, m.Base)
		}
		if n := slips(m.slip); n != 1 || m.slip.writersFirst || m.slip.reentrant || m.slip.watchdog {
			t.Errorf("mutant %s: %d slips, wanted exactly 1 (a policy is no slip)", m.Name, n)
		}
		if m.Slip == "" || strings.Contains(m.Slip, "\n") {
			t.Errorf("mutant %s: wants a one-line slip", m.Name)
		}
		if len(m.Killers) == 0 {
			t.Errorf("mutant %s: no killer declared", m.Name)
		}
	}
	slices.Sort(names)
	if c := slices.Compact(slices.Clone(names)); len(c) != len(names) {
		t.Errorf("names used twice among %v", names)
	}
}

// slips counts the slips s makes.
func slips(s slip) int {
	n := 0
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if v.Field(i).Bool() {
			n++
		}
	}
	return n
}
