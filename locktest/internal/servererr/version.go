package servererr

import (
	"fmt"
	"strings"
)

// Version is a Redis server's version. Where servers differ, the package
// answers as that version does; the zero Version answers as the newest.
// Versions before 7.0, whose command flags differ, are not modelled.
type Version struct{ Major, Minor int }

// ParseVersion reads "7.0.15" or "7.4".
func ParseVersion(s string) (Version, error) {
	var v Version
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return v, fmt.Errorf("servererr: version %q: want major.minor", s)
	}
	if _, err := fmt.Sscan(parts[0], &v.Major); err != nil {
		return v, fmt.Errorf("servererr: version %q: %w", s, err)
	}
	if _, err := fmt.Sscan(parts[1], &v.Minor); err != nil {
		return v, fmt.Errorf("servererr: version %q: %w", s, err)
	}
	return v, nil
}

// queuedOOM says whether, past maxmemory, the server refuses every
// command queued inside MULTI, not only those that may grow memory: 7.0
// to 7.2 do; 7.4 dropped it (redis/redis#12961).
func (v Version) queuedOOM() bool {
	return !v.atLeast(Version{7, 4})
}

// atLeast says whether v is o or later; the zero Version is the newest.
func (v Version) atLeast(o Version) bool {
	return v == Version{} || v.Major > o.Major || v.Major == o.Major && v.Minor >= o.Minor
}
