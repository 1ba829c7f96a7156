package msg

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The catalogs: one file per language, catalogs/LANG.txt, each line a
// message's identifier, " = " and its template in that language. Blank
// lines and lines starting with # are left out. Adding a language is
// adding its file.
//
//go:embed catalogs/*.txt
var files embed.FS

var (
	catalogs = map[Lang]map[string]string{}
	loadErrs []string // what Check reports of the files
)

func init() {
	names, _ := files.ReadDir("catalogs")
	for _, f := range names {
		src, err := files.ReadFile("catalogs/" + f.Name())
		if err != nil {
			loadErrs = append(loadErrs, err.Error())
			continue
		}
		lang := Lang(strings.TrimSuffix(f.Name(), path.Ext(f.Name())))
		if err := AddCatalog(lang, string(src)); err != nil {
			loadErrs = append(loadErrs, fmt.Sprintf("catalogs/%s: %v", f.Name(), err))
		}
	}
}

// AddCatalog adds the catalog of lang, written as the files of catalogs/
// are: a language is a catalog, so this is all it takes to add one.
func AddCatalog(lang Lang, src string) error {
	if lang == English || lang == "" {
		return fmt.Errorf("%q is the language the messages are declared in", lang)
	}
	if _, dup := catalogs[lang]; dup {
		return fmt.Errorf("a second catalog for %s", lang)
	}
	c := map[string]string{}
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, t, ok := strings.Cut(line, " = ")
		switch {
		case !ok || strings.ContainsAny(id, " \t"):
			return fmt.Errorf("line %d: want ID = TEMPLATE, got %q", i+1, line)
		case c[id] != "":
			return fmt.Errorf("line %d: %s a second time", i+1, id)
		}
		c[id] = t
	}
	catalogs[lang] = c
	return nil
}

// Langs returns the languages: English first, then those of the catalogs
// by name.
func Langs() []Lang {
	out := []Lang{English}
	for l := range catalogs {
		out = append(out, l)
	}
	slices.Sort(out[1:])
	return out
}
