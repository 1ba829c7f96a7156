package docblock

import (
	"errors"
	"fmt"
	"os"

	"github.com/locklab/locklab/report"
)

// ErrMismatch is returned by Write when a verdict of the run is not the
// declared one: the docs are left as they are.
var ErrMismatch = errors.New("the docs were left as they are: some verdicts are not the declared ones")

// Write regenerates the blocks of files from rep, each file in the
// language langOf gives it, each break's trace from its one run; source
// blocks quote files under root. It writes nothing unless every verdict
// is the declared one (ErrMismatch) and every block of every file can be
// generated. It returns the files it rewrote.
func (s Style) Write(rep *report.Report, files []string, root string, langOf func(file string) report.Lang) ([]string, error) {
	if !rep.OK() {
		return nil, ErrMismatch
	}
	type update struct{ file, old, new string }
	var updates []update
	for _, f := range files {
		old, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if _, err := s.Parse(string(old)); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		updates = append(updates, update{file: f, old: string(old)})
	}
	for i, u := range updates {
		text, err := s.Rewrite(u.old, rep, root, langOf(u.file))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.file, err)
		}
		updates[i].new = text
	}
	var written []string
	for _, u := range updates {
		if u.old == u.new {
			continue
		}
		if err := os.WriteFile(u.file, []byte(u.new), 0o644); err != nil {
			return written, err
		}
		written = append(written, u.file)
	}
	return written, nil
}
