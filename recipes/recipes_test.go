package recipes_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/recipes"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// quick are the PHP columns go test runs by default, three kinds of
// recipe: a one-command lock released with DEL, a timestamp lock (clock
// notices, a skewed clock), and a Lua release with refresh. The suite
// starts one program per simulated client, and a column takes 10 to 30
// seconds; LOCKLAB_LANGS=all runs every column (make test-langs), and
// LOCKLAB_LANGS=a,b the columns named.
var quick = []string{"setnxpx", "getset", "luatoken"}

// all reports whether LOCKLAB_LANGS asks for everything.
func all() bool { return os.Getenv("LOCKLAB_LANGS") == "all" }

func selected(t *testing.T) []recipes.Program {
	want := quick
	switch v := os.Getenv("LOCKLAB_LANGS"); v {
	case "":
	case "all":
		return recipes.PHP()
	default:
		want = strings.Split(v, ",")
	}
	var out []recipes.Program
	for _, p := range recipes.PHP() {
		if slices.Contains(want, p.Name) {
			out = append(out, p)
		}
	}
	if len(out) != len(want) {
		t.Fatalf("LOCKLAB_LANGS=%s names a column that has no PHP recipe", os.Getenv("LOCKLAB_LANGS"))
	}
	return out
}

// run checks p's contract and the properties props, each against p's
// declared verdict, and returns the results. A check that the server
// disturbed in each of its three runs (a stall: on a busy machine, more
// likely the longer a check runs, and a program's column runs ten times
// longer than a Go one) says nothing about the lock: it is run again,
// twice at most.
func run(t *testing.T, p recipes.Program, props ...locktest.Property) []locktest.Result {
	t.Helper()
	// Every client is a program of its own: on a loaded machine (make
	// test runs two packages at once, beside the other modules' tests)
	// exclusion's 48 critical sections of 6 programs took past the
	// default 30s that the watchdog gives a check, where alone they take
	// about 8s. A hang is still one, found later.
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: p.Factory(".."), Key: redistest.Key(t), Timeout: 2 * time.Minute}
	ctx := context.Background()
	t.Run("contract", func(t *testing.T) {
		for _, c := range locktest.Contract(ctx, cfg) {
			if why, ok := p.ContractFails[c.Name]; ok {
				if c.Err == nil {
					t.Errorf("%s: passes, although it is declared to fail (%s): drop it from ContractFails", c.Name, why)
				} else {
					t.Logf("%s: fails, as declared: %v (%s)", c.Name, c.Err, why)
				}
				continue
			}
			if c.Err != nil {
				t.Errorf("%s: %v", c.Name, c.Err)
			} else {
				t.Logf("%s: %s", c.Name, c.What)
			}
		}
	})
	var out []locktest.Result
	for _, prop := range props {
		t.Run(string(prop), func(t *testing.T) {
			res := locktest.Check(ctx, cfg, prop)
			for try := 2; try <= 3 && errors.Is(res.Err, locktest.ErrInconclusive); try++ {
				t.Logf("try %d: %v", try, res.Err)
				res = locktest.Check(ctx, cfg, prop)
			}
			locktest.Report(t, res, p.Expect.Verdict(prop))
			out = append(out, res)
		})
	}
	return out
}

func TestPrograms(t *testing.T) {
	progs := recipes.PHP()
	require.Len(t, progs, len(catalog.Strategies())-3, "a PHP recipe for every Go column but luatoken-renew-fence and the two Redlock columns")
	for _, p := range append(append(progs, recipes.Libraries()...), recipes.RedisPy(), recipes.TokenLock()) {
		assert.FileExists(t, filepath.Join("..", p.File()[0]), p.Name)
		assert.True(t, p.Expect.Strict, "%s: n/a is declared too", p.Name)
		column := p.Name
		if p.Name == "token-lock" {
			column = "redis-py" // the example is declared as redis-py's Lock
		}
		want, ok := catalog.Declared().Expect(column)
		if assert.True(t, ok, "%s: a column of %s", p.Name, catalog.GridFile) {
			want.Strict = true
			assert.Equal(t, want, p.Expect, "%s reads its column of %s", p.Name, catalog.GridFile)
		}
	}
	for _, prop := range locktest.Properties() {
		for _, column := range []string{"redis-py", "symfony-lock", "symfony-lock-store-ttl", "laravel", "laravel-seconds"} {
			assert.NotEmpty(t, catalog.Declared().Verdict(column, prop), "%s: %s declares nothing for %s", catalog.GridFile, column, prop)
		}
	}
	assert.Equal(t, "php", recipes.PHPCommand()[0])
}

// TestPHP runs the PHP recipes through the suite: each column must give
// its Go column's verdicts, cell by cell, n/a included.
func TestPHP(t *testing.T) {
	t.Parallel()
	langtest.Need(t, langtest.PHP, langtest.Faketime)
	start := time.Now()
	progs := selected(t)
	t.Cleanup(func() { t.Logf("%d PHP columns in %v", len(progs), time.Since(start).Round(time.Millisecond)) })
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			run(t, p, locktest.Properties()...)
			t.Logf("%s: %v", p.Name, time.Since(began).Round(time.Millisecond))
		})
	}
}

// libraryRows are the properties go test runs the PHP frameworks' locks
// on by default: where a crash, a pause or a late release meets the lock,
// and where they differ from one another (the clock read, the missing
// TTL, the second script of an acquire). LOCKLAB_LANGS=all (make
// test-langs) runs every property.
var libraryRows = []locktest.Property{
	locktest.ReleaseFrees, locktest.CrashRecovery, locktest.CrashMidAcquire, locktest.ClockSkew,
	locktest.SafeRelease, locktest.DoubleRelease, locktest.SafeRefresh, locktest.HolderOverrun,
}

// TestLibraries runs the PHP frameworks' locks through the suite, each
// against its column of the grid, at its time scale. A column whose
// packages are missing is skipped, naming them (it fails under
// LOCKLAB_REQUIRE_LANGS=1); the others run.
func TestLibraries(t *testing.T) {
	t.Parallel()
	runColumns(t, recipes.Libraries(), libraryProps())
}

// libraryProps are the properties the library columns (the PHP
// frameworks' locks, redis-py's) run on: libraryRows, or every property
// under LOCKLAB_LANGS=all, unless LOCKLAB_LIBRARIES=rows says that the
// whole columns run elsewhere. CI says so: the peers module's
// TestLibraryPagesUpToDate runs every property on each of these columns,
// against the same declared verdicts, for the library pages, and one run
// of them is enough.
func libraryProps() []locktest.Property {
	if all() && os.Getenv("LOCKLAB_LIBRARIES") != "rows" {
		return locktest.Properties()
	}
	return libraryRows
}

// runColumns runs each of progs on props, in a subtest of its own that is
// skipped, naming them, when its packages are missing.
func runColumns(t *testing.T, progs []recipes.Program, props []locktest.Property) {
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			langtest.Need(t, p.Needs...)
			began := time.Now()
			run(t, p, props...)
			t.Logf("%s: %v", p.Name, time.Since(began).Round(time.Millisecond))
		})
	}
}

// TestKinds runs the PHP frameworks' read-write locks and semaphores
// through the suite on the properties of both kinds: those of its own kind
// against its declared verdicts, and n/a on the others', which says that
// its ready line announces its kind. A column whose packages are missing
// is skipped, naming them (it fails under LOCKLAB_REQUIRE_LANGS=1).
func TestKinds(t *testing.T) {
	t.Parallel()
	for _, p := range recipes.Kinds() {
		runColumns(t, []recipes.Program{p}, kindRows())
	}
}

// kindRows are the properties of both kinds.
func kindRows() []locktest.Property {
	return append(locktest.KindProperties(strategy.ReadWrite), locktest.KindProperties(strategy.Semaphore)...)
}

// TestKindRecipes runs the PHP copies of the kinds' Go columns on the
// properties of both kinds: each gives its Go column's verdicts, cell by
// cell, and its ready line names the keys the Go strategy declares, so
// that no check notes a key written outside the lock's own.
func TestKindRecipes(t *testing.T) {
	t.Parallel()
	langtest.Need(t, langtest.PHP)
	progs := recipes.KindRecipes()
	require.NotEmpty(t, progs)
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			declared, ok := catalog.DeclaredKind(p.Kind).Expect(p.Name)
			require.True(t, ok, "%s: a Go column of %s", p.Name, catalog.KindGridFile(p.Kind))
			assert.ElementsMatch(t, declared.Breaks, p.Expect.Breaks, "%s: its Go column's breaks", p.Name)
			for _, res := range run(t, p, kindRows()...) {
				for _, n := range res.Notes {
					assert.NotEqual(t, "keys.outside", n.ID, "%s %s: %s", p.Name, res.Property, n)
				}
			}
		})
	}
}

// TestKindPrograms: each program of Kinds has its file, its own command
// line, a kind that has properties, and declares n/a on the other kind's
// properties and where its kind's grid says so.
func TestKindPrograms(t *testing.T) {
	seen := map[string]string{}
	for _, p := range recipes.Kinds() {
		file := strings.Join(p.File(), " ")
		assert.FileExists(t, filepath.Join("..", p.File()[0]), p.Name)
		assert.NotContains(t, seen, file, "%s runs what %s runs", p.Name, seen[file])
		seen[file] = p.Name
		assert.True(t, p.Expect.Strict, "%s: n/a is declared too", p.Name)
		own := locktest.KindProperties(p.Kind)
		assert.NotEmpty(t, own, "%s: kind %q", p.Name, p.Kind)
		for _, k := range []strategy.Kind{strategy.ReadWrite, strategy.Semaphore} {
			for _, prop := range locktest.KindProperties(k) {
				want := catalog.DeclaredKind(p.Kind).Verdict(p.Name, prop) == locktest.NotApplicable
				if k != p.Kind {
					want = true // the other kind's properties do not apply
				}
				assert.Equal(t, want, slices.Contains(p.Expect.NotApplicable, prop), "%s: n/a on %s as its grid says", p.Name, prop)
			}
		}
	}
}

// TestRedisPy runs redis-py's Lock through the suite against its declared
// verdicts: on every property, or on libraryRows under
// LOCKLAB_LIBRARIES=rows (see libraryProps).
func TestRedisPy(t *testing.T) {
	t.Parallel()
	langtest.Need(t, langtest.RedisPy)
	p := recipes.RedisPy()
	start := time.Now()
	props := locktest.Properties()
	if os.Getenv("LOCKLAB_LIBRARIES") == "rows" {
		props = libraryRows
	}
	run(t, p, props...)
	t.Logf("%v", time.Since(start).Round(time.Millisecond))
}

// TestTokenLock runs the example program of docs/exec.md: by default on
// the properties where a release or a refresh can go wrong, every property
// with LOCKLAB_LANGS=all.
func TestTokenLock(t *testing.T) {
	t.Parallel()
	langtest.Need(t, langtest.RedisPy)
	p := recipes.TokenLock()
	if all() {
		run(t, p, locktest.Properties()...)
		return
	}
	run(t, p, locktest.ReleaseFrees, locktest.CrashRecovery, locktest.SafeRelease,
		locktest.DoubleRelease, locktest.SafeRefresh, locktest.HolderOverrun)
}

// TestPage checks the PHP matrix of docs/php.md against what the PHP
// columns are declared to give, cell by cell.
func TestPage(t *testing.T) {
	b, err := os.ReadFile("../docs/php.md")
	require.NoError(t, err)
	progs := recipes.PHP()
	var header []string
	rows := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case len(cells) > 1 && cells[0] == "property" && len(cells) == len(progs)+1:
			header = cells[1:]
		case header != nil && len(cells) == len(progs)+1 && cells[0] != "---":
			if _, err := locktest.ParseProperty(cells[0]); err == nil {
				rows[cells[0]] = cells[1:]
			}
		}
	}
	require.NotNil(t, header, "docs/php.md has the PHP matrix")
	libs := recipes.Libraries()
	libRows := map[string][]string{}
	var libHeader []string
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != len(libs)+1 {
			continue
		}
		if cells[0] == "property" && cells[1] == libs[0].Name {
			libHeader = cells[1:]
		} else if _, err := locktest.ParseProperty(cells[0]); err == nil && libHeader != nil {
			libRows[cells[0]] = cells[1:]
		}
	}
	require.NotNil(t, libHeader, "docs/php.md has the frameworks' matrix")
	for i, p := range libs {
		assert.Equal(t, p.Name, libHeader[i], "the frameworks' column %d", i+1)
		for _, prop := range locktest.Properties() {
			if row, ok := libRows[string(prop)]; assert.True(t, ok, "the frameworks' matrix has a row for %s", prop) {
				assert.Equal(t, string(p.Expect.Verdict(prop)), row[i], "%s / %s", p.Name, prop)
			}
		}
	}
	for i, p := range progs {
		assert.Equal(t, p.Name, header[i], "column %d", i+1)
	}
	for _, prop := range locktest.Properties() {
		row, ok := rows[string(prop)]
		if !assert.True(t, ok, "the matrix has a row for %s", prop) {
			continue
		}
		for i, p := range progs {
			assert.Equal(t, string(p.Expect.Verdict(prop)), row[i], "%s / %s", p.Name, prop)
		}
	}
}

// TestLibraryArgv: each framework's column runs its own program, with its
// own arguments: their command lines share no memory.
func TestLibraryArgv(t *testing.T) {
	seen := map[string]string{}
	for _, p := range recipes.Libraries() {
		file := strings.Join(p.File(), " ")
		assert.NotContains(t, seen, file, "%s runs what %s runs", p.Name, seen[file])
		seen[file] = p.Name
		assert.Contains(t, file, map[bool]string{true: "laravel.php", false: "symfony-lock.php"}[strings.HasPrefix(p.Name, "laravel")], p.Name)
	}
}

// TestProbeKey: Symfony's RedisStore writes symfony_check_support_time
// once per store, outside the lock's key: every verdict names it in a
// note, and none rests on it.
func TestProbeKey(t *testing.T) {
	i := slices.IndexFunc(recipes.Libraries(), func(p recipes.Program) bool { return p.Name == "symfony-lock" })
	require.GreaterOrEqual(t, i, 0)
	p := recipes.Libraries()[i]
	langtest.Need(t, p.Needs...)
	cfg := locktest.Config{Addr: redistest.Shared(t).Addr, New: p.Factory(".."), Key: redistest.Key(t)}
	res := locktest.Check(context.Background(), cfg, locktest.SafeRelease)
	require.NoError(t, res.Err)
	assert.Equal(t, p.Expect.Verdict(locktest.SafeRelease), res.Verdict, res.Reason())
	require.Len(t, res.Notes, 1)
	assert.Equal(t, "the lock also wrote symfony_check_support_time, outside its own keys: named here, judged on nothing", res.Notes[0].String())
}
