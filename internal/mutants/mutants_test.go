package mutants

import (
	"regexp"
	"strings"
	"testing"
)

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestCorpusShape: every mutant and survivor is the correct lock with
// exactly one step changed and a one-line slip; a mutant declares killers,
// a survivor none but its gap; every name is kebab case, once.
func TestCorpusShape(t *testing.T) {
	seen := map[string]bool{}
	name := func(kind, n string) {
		if !kebab.MatchString(n) || seen[n] {
			t.Errorf("%s %q: a name must be kebab case and unique", kind, n)
		}
		seen[n] = true
	}
	oneSlip := func(kind string, m Mutant) {
		name(kind, m.Name)
		if n := changed(m.slip); n != 1 {
			t.Errorf("%s %s: changes %d steps of the correct lock, wanted exactly 1", kind, m.Name, n)
		}
		if m.Slip == "" || strings.Contains(m.Slip, "\n") {
			t.Errorf("%s %s: wants a one-line slip", kind, m.Name)
		}
	}
	for _, m := range Mutants() {
		oneSlip("mutant", m)
		if len(m.Killers) == 0 {
			t.Errorf("mutant %s: no killer declared", m.Name)
		}
	}
	if n := len(Mutants()); n < 18 {
		t.Errorf("the corpus has %d mutants, wanted at least 18", n)
	}
	for _, m := range Survivors() {
		oneSlip("survivor", m)
		if len(m.Killers) != 0 || m.Gap == "" {
			t.Errorf("survivor %s: wants no killers and a gap", m.Name)
		}
	}
	for _, v := range Variants() {
		name("variant", v.Name)
	}
}

// changed counts the steps r sets.
func changed(r recipe) int {
	n := 0
	for _, set := range []bool{r.token != nil, r.acquire != nil, r.release != nil, r.refresh != nil, r.fenced != nil, r.keys != nil, r.watchdog != nil} {
		if set {
			n++
		}
	}
	return n
}
