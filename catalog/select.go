package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locklab/locklab/locktest"
)

// Select returns the entries of all that list names (comma-separated;
// blanks and repeats ignored), in the order of all; an empty list selects
// every entry. A name not in all is an error that lists the names there
// are.
func Select(all []Entry, list string) ([]Entry, error) {
	want := names(list)
	if len(want) == 0 {
		return all, nil
	}
	valid := make([]string, len(all))
	for i, e := range all {
		valid[i] = e.Name
	}
	for _, n := range want {
		if !slices.Contains(valid, n) {
			return nil, fmt.Errorf("unknown strategy %q; the strategies are %s", n, strings.Join(valid, ", "))
		}
	}
	var out []Entry
	for _, e := range all {
		if slices.Contains(want, e.Name) {
			out = append(out, e)
		}
	}
	return out, nil
}

// SelectProperties returns the properties that list names, as Select
// does, in the suite's order (locktest.AllProperties): by default all,
// the topology properties included.
func SelectProperties(list string) ([]locktest.Property, error) {
	all := locktest.AllProperties()
	want := names(list)
	if len(want) == 0 {
		return all, nil
	}
	valid := make([]string, len(all))
	for i, p := range all {
		valid[i] = string(p)
	}
	for _, n := range want {
		if !slices.Contains(valid, n) {
			return nil, fmt.Errorf("unknown property %q; the properties are %s", n, strings.Join(valid, ", "))
		}
	}
	var out []locktest.Property
	for _, p := range all {
		if slices.Contains(want, string(p)) {
			out = append(out, p)
		}
	}
	return out, nil
}

// names splits a comma-separated list, dropping blanks and repeats.
func names(list string) []string {
	var out []string
	for n := range strings.SplitSeq(list, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
