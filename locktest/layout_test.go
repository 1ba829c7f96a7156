package locktest_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rooms are the suite's packages from the top down: each may import only
// those below it (CONTRIBUTING.md, How the suite decides).
var rooms = []string{
	"locktest",
	"locktest/internal/props",
	"locktest/internal/explore",
	"locktest/internal/harness",
	"locktest/internal/sim",
	"locktest/internal/trace",
	"locktest/internal/judge",
	"locktest/internal/wire",
	"locktest/internal/servererr",
}

// users are the packages under locktest that use the facade from above,
// as any user of the suite does.
var users = []string{
	"locktest/process",
	"locktest/internal/mylock",
}

// The shape the rooms keep: no struct with more fields, no type with its
// methods in more files, no more files in the facade.
const (
	maxFields      = 20
	maxMethodFiles = 3
	maxFacadeFiles = 25
)

const module = "github.com/locklab/locklab/"

// TestLayout fails when a room imports a room above it, or a package under
// locktest is in no room.
func TestLayout(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the layout is read with go list")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	seen := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(f[0], module)
		floor := slices.Index(rooms, pkg)
		if floor < 0 {
			if !slices.Contains(users, pkg) {
				t.Errorf("%s is in no room: add it to rooms (or users) in layout_test.go, where its imports point down", pkg)
			}
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if below := slices.Index(rooms, strings.TrimPrefix(imp, module)); below >= 0 && below <= floor {
				t.Errorf("%s imports %s, a room at or above it: move what it needs down, or what needs it up", pkg, imp)
			}
			if u := strings.TrimPrefix(imp, module); slices.Contains(users, u) {
				t.Errorf("%s imports %s, which uses the facade from above", pkg, imp)
			}
		}
	}
	if seen != len(rooms) {
		t.Errorf("go list found %d of the %d rooms", seen, len(rooms))
	}
}

// TestShape fails when a struct of the rooms grows past maxFields fields,
// a type's methods spread over more than maxMethodFiles files, or the
// facade past maxFacadeFiles files.
func TestShape(t *testing.T) {
	fset := token.NewFileSet()
	facade := 0
	for _, room := range rooms {
		dir := strings.TrimPrefix(room, "locktest")
		dir = strings.TrimPrefix(dir, "/")
		if dir == "" {
			dir = "."
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		methodFiles := map[string]map[string]bool{}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			if room == "locktest" {
				facade++
			}
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						continue
					}
					name := receiverName(d.Recv.List[0].Type)
					if methodFiles[name] == nil {
						methodFiles[name] = map[string]bool{}
					}
					methodFiles[name][filepath.Base(file)] = true
				case *ast.GenDecl:
					for _, s := range d.Specs {
						ts, ok := s.(*ast.TypeSpec)
						if !ok {
							continue
						}
						if st, ok := ts.Type.(*ast.StructType); ok {
							if n := fieldCount(st); n > maxFields {
								t.Errorf("%s: %s.%s has %d fields, more than %d: group what belongs together in a type of its own", fset.Position(ts.Pos()), room, ts.Name.Name, n, maxFields)
							}
						}
					}
				}
			}
		}
		for name, fs := range methodFiles {
			if len(fs) > maxMethodFiles {
				t.Errorf("%s.%s has methods in %d files, more than %d: %s", room, name, len(fs), maxMethodFiles, strings.Join(slices.Sorted(maps.Keys(fs)), ", "))
			}
		}
	}
	if facade > maxFacadeFiles {
		t.Errorf("the facade has %d Go files, more than %d: what is not its API goes to a room below", facade, maxFacadeFiles)
	}
}

// TestDocNamesNoRoom fails when the facade's documentation names a room
// below it: its API is its own types.
func TestDocNamesNoRoom(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goTool, "doc", "-all", ".").Output()
	if err != nil {
		t.Fatalf("go doc -all: %v", err)
	}
	for _, room := range rooms[1:] {
		name := filepath.Base(room) + "."
		for line := range strings.Lines(string(out)) {
			if strings.Contains(line, " "+name) || strings.Contains(line, "*"+name) || strings.Contains(line, "]"+name) || strings.Contains(line, "("+name) {
				t.Errorf("go doc -all ./locktest names the room %s: %s", room, strings.TrimSpace(line))
			}
		}
	}
}

func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return fmt.Sprintf("%T", e)
}

func fieldCount(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(1, len(f.Names))
	}
	return n
}
