package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/peers"
	"github.com/locklab/locklab/recipes"
)

// libraryPages are the library pages, from the repository's root:
// docs/libraries.md and its Chinese edition, which lockdocs writes from
// the JSON of peercheck -libraries (make docs).
var libraryPages = []string{"docs/libraries.md", "docs/zh/libraries.md"}

// library is a column of the library pages, and what it needs installed
// (langtest.Need's names) beyond Go.
type library struct {
	entry catalog.Entry
	needs []string
}

// libraries are the columns of the library pages, in their order: the Go
// libraries (package peers), redis-py's Lock, the PHP frameworks' locks,
// each run from the repository's root root, and luatoken beside them.
func libraries(root string) []library {
	var out []library
	for _, e := range peers.Peers() {
		out = append(out, library{entry: e})
	}
	for _, p := range append([]recipes.Program{recipes.RedisPy()}, recipes.Libraries()...) {
		out = append(out, library{entry: p.Entry(root), needs: p.Needs})
	}
	lt, ok := catalog.Lookup("luatoken")
	if !ok {
		panic("peercheck: the catalog has no luatoken")
	}
	return append(out, library{entry: lt})
}

// libraryColumns returns the columns of the library pages whose programs
// can run here. A column whose packages are missing is left out, with one
// line on stderr naming what to install.
func libraryColumns(root string, stderr io.Writer) ([]catalog.Entry, error) {
	return available(libraries(root), stderr)
}

// available is libraryColumns on the columns libs.
func available(libs []library, stderr io.Writer) ([]catalog.Entry, error) {
	var out []catalog.Entry
	for _, l := range libs {
		if why := langtest.Missing(l.needs...); why != "" {
			fmt.Fprintf(stderr, "peercheck: %s skipped: %s\n", l.entry.Name, why)
			continue
		}
		out = append(out, l.entry)
	}
	if len(out) == 0 {
		return nil, errors.New("no column can run here")
	}
	return out, nil
}

// repositoryRoot is the nearest directory at or above dir that holds the
// lock programs (recipes/recipes.go): the repository's root, from which
// they run.
func repositoryRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "recipes", "recipes.go")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no directory at or above %s holds recipes/recipes.go: give the repository's root with -root", abs)
		}
	}
}
