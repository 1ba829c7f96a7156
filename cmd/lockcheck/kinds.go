package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/matrixrun"
	"github.com/locklab/locklab/strategy"
)

// Without -kind, lockcheck checks every kind of lock, one matrix each, in
// one run: the mutexes, the read-write locks, the semaphores. -strategy
// and -property then take the names of any kind, and a kind runs when
// they name some of its columns and properties (or name none).

// allKinds are the kinds of locks lockcheck checks, in the order of
// their matrices.
var allKinds = []strategy.Kind{strategy.Mutex, strategy.ReadWrite, strategy.Semaphore}

// kindNames are the kinds' names in the lists of -strategy's and
// -property's errors.
var kindNames = map[strategy.Kind]string{
	strategy.Mutex:     "mutexes",
	strategy.ReadWrite: "read-write locks",
	strategy.Semaphore: "semaphores",
}

// columnsOf are the catalog's columns of kind k; tests replace the
// mutexes' (strategies).
func columnsOf(k strategy.Kind) []catalog.Entry {
	if k == strategy.Mutex {
		return strategies()
	}
	return catalog.KindStrategies(k)
}

// propertiesOf are the properties of kind k.
func propertiesOf(k strategy.Kind) []locktest.Property {
	ps, _ := catalog.SelectKindProperties(k, "")
	return ps
}

// selectParts returns the matrices to check among kinds: with one kind,
// its columns and properties that the lists name (catalog.Select's
// errors for a name it lacks); with several, each name is looked for in
// every kind, and a kind runs with those of its columns and properties
// the lists name, when they name some or none.
func selectParts(kinds []strategy.Kind, strategyList, propertyList string) ([]matrixrun.Part, error) {
	if len(kinds) == 1 {
		k := kinds[0]
		es, err := catalog.Select(columnsOf(k), strategyList)
		if err != nil {
			return nil, usageError{"-strategy: " + err.Error() + otherKind(k, strategyList)}
		}
		ps, err := catalog.SelectKindProperties(k, propertyList)
		if err != nil {
			return nil, usageError{"-property: " + err.Error()}
		}
		return []matrixrun.Part{{Kind: k, Entries: es, Properties: ps}}, nil
	}
	columns := map[strategy.Kind][]string{}
	props := map[strategy.Kind][]string{}
	for _, k := range kinds {
		for _, e := range columnsOf(k) {
			columns[k] = append(columns[k], e.Name)
		}
		for _, p := range propertiesOf(k) {
			props[k] = append(props[k], string(p))
		}
	}
	wantColumns, err := within(kinds, columns, strategyList, "strategy")
	if err != nil {
		return nil, err
	}
	wantProps, err := within(kinds, props, propertyList, "property")
	if err != nil {
		return nil, err
	}
	var parts []matrixrun.Part
	var named []string // the properties named of the kinds that run
	for _, k := range kinds {
		if strategyList != "" && len(wantColumns[k]) == 0 {
			continue
		}
		if propertyList != "" && len(wantProps[k]) == 0 {
			if strategyList != "" {
				return nil, usageError{fmt.Sprintf("-property names no property of the %s, which -strategy names (%s): theirs are %s",
					kindNames[k], strings.Join(wantColumns[k], ", "), strings.Join(props[k], ", "))}
			}
			continue
		}
		es, _ := catalog.Select(columnsOf(k), strings.Join(wantColumns[k], ","))
		ps, _ := catalog.SelectKindProperties(k, strings.Join(wantProps[k], ","))
		parts = append(parts, matrixrun.Part{Kind: k, Entries: es, Properties: ps})
		named = append(named, wantProps[k]...)
	}
	for _, p := range names(propertyList) {
		if !slices.Contains(named, p) {
			return nil, usageError{fmt.Sprintf("-property %s: a property of %s, of which -strategy names no column",
				p, kindsOf(kinds, props, p))}
		}
	}
	return parts, nil
}

// otherKind says which column of list is of another kind than k, and
// the -kind that checks it; "" when none is.
func otherKind(k strategy.Kind, list string) string {
	for _, n := range names(list) {
		for _, other := range allKinds {
			if other == k {
				continue
			}
			for _, e := range columnsOf(other) {
				if e.Name == n {
					return fmt.Sprintf(" (%s is one of the %s: -kind %s, or no -kind, checks it)", n, kindNames[other], other)
				}
			}
		}
	}
	return ""
}

// within returns, for each kind, those of its names (a kind's columns or
// properties) that list names; a name of no kind is an error that lists
// every kind's, what being the word for one of them.
func within(kinds []strategy.Kind, all map[strategy.Kind][]string, list, what string) (map[strategy.Kind][]string, error) {
	out := map[strategy.Kind][]string{}
	for _, n := range names(list) {
		found := false
		for _, k := range kinds {
			if slices.Contains(all[k], n) {
				out[k] = append(out[k], n)
				found = true
			}
		}
		if !found {
			var groups []string
			for _, k := range kinds {
				groups = append(groups, kindNames[k]+": "+strings.Join(all[k], ", "))
			}
			plural := strings.TrimSuffix(what, "y") + "ies"
			return nil, usageError{fmt.Sprintf("-%s: unknown %s %q; the %s are, by kind of lock:\n  %s",
				what, what, n, plural, strings.Join(groups, "\n  "))}
		}
	}
	return out, nil
}

// kindsOf names the kinds whose names (all) have n: "the semaphores".
func kindsOf(kinds []strategy.Kind, all map[strategy.Kind][]string, n string) string {
	var out []string
	for _, k := range kinds {
		if slices.Contains(all[k], n) {
			out = append(out, "the "+kindNames[k])
		}
	}
	return strings.Join(out, " and ")
}

// names splits a comma-separated list as catalog.Select reads it, its
// blanks and repeats dropped.
func names(list string) []string {
	var out []string
	for _, n := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
