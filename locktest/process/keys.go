package process

import (
	"slices"
	"strings"

	"github.com/locklab/locklab/strategy"
)

// A program whose lock does not live at the suite's key K alone names its
// keys on its ready line (docs/exec.md), as a Go lock does with
// strategy.Keyed and strategy.SideKeyed:
//
//	ready permits=2 keys={K}:time,{K}:weight
//	ready shared beside={K}:writers
//	ready shared keys=K,K:readers beside=K:writer-intent
//	ready shared beside={K}*
//
// keys= names the keys whose state says whether the lock is held (K
// among them when the lock writes it): the suite reads them where it
// reads K. beside= names the keys the lock writes beside them (a waiting
// writer's intent, a counter), which the suite counts as the lock's own
// and does not read; a * in one stands for any text, for names the lock
// draws as it goes. Each name is written as the suite's timelines write
// keys, with K for the run's key.

// parseKeys reads the value of keys= or beside= (word): names separated
// by commas, each of them naming K, with a * only beside=. It returns why
// the value is not that, or "".
func parseKeys(word, value string) ([]string, string) {
	names := strings.Split(value, ",")
	for i, n := range names {
		switch {
		case n == "":
			return nil, word + "= takes names separated by commas, none of them empty"
		case !strings.Contains(n, "K"):
			return nil, "each name of " + word + "= holds K, the run's key (" + n + " does not)"
		case word == "keys" && strings.Contains(n, "*"):
			return nil, "keys= names keys the suite reads, which a * cannot stand in (beside= takes patterns)"
		case slices.Contains(names[:i], n):
			return nil, word + "= names " + n + " twice"
		}
	}
	return names, ""
}

var (
	_ strategy.Keyed     = (*Strategy)(nil)
	_ strategy.SideKeyed = (*Strategy)(nil)
)

// Keys returns the keys the program announced with keys= on its ready
// line, each K in them replaced by key; nil when it announced none: its
// lock is at key.
func (s *Strategy) Keys(key string) []string { return named(s.p.caps.keys, key) }

// SideKeys returns the names the program announced with beside= on its
// ready line, each K in them replaced by key; nil when it announced none.
func (s *Strategy) SideKeys(key string) []string { return named(s.p.caps.beside, key) }

// named returns names with each K replaced by key, or nil.
func named(names []string, key string) []string {
	if len(names) == 0 {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ReplaceAll(n, "K", key)
	}
	return out
}
