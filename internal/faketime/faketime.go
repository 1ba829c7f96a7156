// Package faketime finds libfaketime, which runs a program with its clock
// moved (Debian's packages faketime and libfaketime).
package faketime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// paths are where Debian's libfaketime package and a build from
// source put the library, in the order they are tried.
var paths = []string{
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/*-linux-gnu*/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1",
}

// ErrNotFound is returned by Find when libfaketime is nowhere it looks.
var ErrNotFound = errors.New("faketime: libfaketime not found")

// Find returns the path of libfaketime.so.1: the one named by
// LOCKLAB_LIBFAKETIME if set, else the first found where Debian's
// libfaketime package (installed with the faketime package) puts it.
func Find() (string, error) {
	if p := os.Getenv("LOCKLAB_LIBFAKETIME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: LOCKLAB_LIBFAKETIME=%s: %w", ErrNotFound, p, err)
		}
		return p, nil
	}
	for _, pattern := range paths {
		matches, _ := filepath.Glob(pattern)
		if len(matches) > 0 {
			return matches[0], nil
		}
	}
	return "", fmt.Errorf("%w in %s: a skewed clock needs it (Debian: apt-get install faketime; or set LOCKLAB_LIBFAKETIME)",
		ErrNotFound, strings.Join(paths, ", "))
}
