package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/strategy"
)

// Select returns the entries of all that list names (comma-separated;
// blanks and repeats ignored), in the order of all; an empty list selects
// every entry. A name not in all is an error that lists the names there
// are.
func Select(all []Entry, list string) ([]Entry, error) {
	return pick(all, list, "strategy", func(e Entry) string { return e.Name })
}

// SelectProperties returns the properties that list names, as Select
// does, in the suite's order (locktest.AllProperties): by default all,
// the topology properties included.
func SelectProperties(list string) ([]locktest.Property, error) {
	return SelectKindProperties(strategy.Mutex, list)
}

// SelectKindProperties is SelectProperties among the properties of kind
// k: AllProperties for a mutex, KindProperties for the others.
func SelectKindProperties(k strategy.Kind, list string) ([]locktest.Property, error) {
	all := locktest.AllProperties()
	if k != strategy.Mutex {
		all = locktest.KindProperties(k)
	}
	return pick(all, list, "property", func(p locktest.Property) string { return string(p) })
}

// pick returns the items of all that list names, in the order of all,
// or all when list names none; what is the word for an item in errors.
func pick[T any](all []T, list, what string, name func(T) string) ([]T, error) {
	want := names(list)
	if len(want) == 0 {
		return all, nil
	}
	valid := make([]string, len(all))
	for i, x := range all {
		valid[i] = name(x)
	}
	for _, n := range want {
		if !slices.Contains(valid, n) {
			return nil, fmt.Errorf("unknown %s %q; the %s are %s", what, n, plural(what), strings.Join(valid, ", "))
		}
	}
	var out []T
	for _, x := range all {
		if slices.Contains(want, name(x)) {
			out = append(out, x)
		}
	}
	return out, nil
}

// plural is the plural of strategy and property.
func plural(word string) string { return strings.TrimSuffix(word, "y") + "ies" }

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
