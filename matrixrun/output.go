package matrixrun

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/report"
	"github.com/locklab/locklab/strategy"
)

// Print writes the matrix of rep to p.Stdout with wr and returns the exit
// status: ExitMismatch when a verdict is not the declared one.
func (p Program) Print(rep *report.Report, wr report.Writer) int {
	if err := wr.Write(p.Stdout, rep); err != nil {
		p.log("%v", err)
		return ExitMismatch
	}
	if !rep.OK() {
		return ExitMismatch
	}
	return ExitOK
}

// UpdateGrid is -update: it writes the verdicts of rep into the declared
// grid, catalog.GridFile under root, the repository's root, and says which
// cells changed. A check without a verdict, or one whose verdict changed
// between runs, writes nothing.
func (p Program) UpdateGrid(rep *report.Report, root string) int {
	return p.UpdateKindGrid(rep, root, strategy.Mutex)
}

// UpdateKindGrid is UpdateGrid of the grid of kind k: catalog.GridFile
// for a mutex, catalog.KindGridFile for the others.
func (p Program) UpdateKindGrid(rep *report.Report, root string, k strategy.Kind) int {
	file, update := catalog.GridFile, catalog.UpdateGrid
	if k != strategy.Mutex {
		file = catalog.KindGridFile(k)
		update = func(root string, found catalog.Found) ([]catalog.Change, error) {
			return catalog.UpdateKindGrid(root, k, found)
		}
	}
	found := catalog.Found{}
	for _, r := range rep.Results {
		if r.Err != nil {
			p.log("-update: %s %s reached no verdict: %s left as it is", r.Strategy, r.Property, file)
			return ExitMismatch
		}
		found.Add(r.Strategy, r.Property, r.Verdict)
	}
	if len(rep.Changes) > 0 {
		p.log("-update: %d verdicts changed between runs: %s left as it is", len(rep.Changes), file)
		return ExitMismatch
	}
	changes, err := update(root, found)
	if err != nil {
		p.log("-update: %v", err)
		return ExitMismatch
	}
	for _, c := range changes {
		p.log("-update: %v", c)
	}
	p.log("-update: %d of %d cells changed in %s", len(changes), len(rep.Results), file)
	return ExitOK
}

// Pages links a column to its page in the docs under root, for HTML
// output: docs/<name>.md (docs/zh/<name>.md in Chinese, where it exists),
// else the page of the name cut before its last "-" (luatoken-renew-fence
// is explained on luatoken's page, redlock-delayed-restart on redlock's),
// else fallback when it is not ""; no link when no such page exists under
// root. The links are relative to root: a page written there finds them.
func Pages(root string, lang report.Lang, fallback string) func(string) string {
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	find := func(name string) string {
		for {
			if lang != report.English && exists("docs/"+string(lang)+"/"+name+".md") {
				return "docs/" + string(lang) + "/" + name + ".md"
			}
			if exists("docs/" + name + ".md") {
				return "docs/" + name + ".md"
			}
			i := strings.LastIndex(name, "-")
			if i <= 0 {
				return ""
			}
			name = name[:i]
		}
	}
	return func(column string) string {
		if page := find(column); page != "" {
			return page
		}
		if fallback != "" {
			return find(fallback)
		}
		return ""
	}
}
