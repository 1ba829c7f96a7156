package luatoken

import (
	"github.com/locklab/locklab/strategy"
	"github.com/locklab/locklab/strategy/internal/recipe"
)

// FenceSuffix ends the name of every fencing counter key.
const FenceSuffix = ":fence"

// FenceKey returns the name of the counter key that WithFencing increments
// for lock key, chosen so that it hashes to the same Redis Cluster slot as
// key (the acquire script touches both):
//
//   - key has a hash tag (a "{…}" with something inside, the first one as
//     Redis Cluster reads it): key + ":fence", which keeps the tag.
//     "{order:42}:lock" → "{order:42}:lock:fence".
//   - key has no hash tag and no "}": the whole key becomes the tag.
//     "orders:42" → "{orders:42}:fence".
//   - key has a "}" but no hash tag, as "a}b" or "a{}b", so that no tag can
//     spell it: "{" + n + "}:fence:" + key, where n is the smallest decimal
//     number whose slot is key's slot: "a}b" → "{20658}:fence:a}b".
func FenceKey(key string) string { return recipe.SideKey(key, FenceSuffix) }

var _ strategy.SideKeyed = (*Strategy)(nil)

// SideKeys implements strategy.SideKeyed: with WithFencing, the fencing
// counter, FenceKey(key), which the lock writes beside key and which says
// nothing of who holds it; nil otherwise.
func (s *Strategy) SideKeys(key string) []string {
	if !s.cfg.fencing {
		return nil
	}
	return []string{FenceKey(key)}
}
