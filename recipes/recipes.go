// Package recipes lists the lock programs of this directory, which the
// conformance suite runs through package locktest/process: the source
// documents' recipes in PHP, one per column of package catalog
// (recipes/php), redis-py's Lock through a short adapter, and the example
// program of docs/exec.md (recipes/python). docs/php.md shows their
// verdicts beside the Go columns.
package recipes

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/internal/langtest"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/locktest/process"
	"github.com/locklab/locklab/strategy"
)

// Python is the interpreter the Python programs run with: the system's,
// which Debian's python3-redis installs redis-py for.
const Python = "/usr/bin/python3"

// Program is a lock program and what the suite is declared to find.
type Program struct {
	// Name is the program's column. A PHP recipe's is the name of the Go
	// column it copies.
	Name string
	// Argv runs the program from the repository's root.
	Argv []string
	// Expect is the declared verdict of every property (Strict: n/a is
	// declared too). A PHP recipe's is its Go column's: the same column
	// of the grid in package catalog (catalog.GridFile).
	Expect locktest.Expect
	// Needs is what the program needs installed (see langtest.Need).
	Needs []string
	// Kind is the lock's kind, as its ready line announces it: "" for
	// the mutexes, strategy.ReadWrite or strategy.Semaphore for the
	// programs of Kinds and KindRecipes.
	Kind strategy.Kind
	// ContractFails names the checks of the suite's contract
	// (locktest.Contract) that the lock is known to fail, each with why,
	// from its source.
	ContractFails map[string]string
}

// Factory returns the factory that runs p, from the repository's root
// root, named after its file (and its arguments, if any).
func (p Program) Factory(root string, opts ...process.Option) locktest.Factory {
	file := p.File()
	name := filepath.Base(file[0])
	if len(file) > 1 {
		name += " " + strings.Join(file[1:], " ")
	}
	opts = append([]process.Option{process.WithDir(root), process.WithName(name)}, opts...)
	return process.Factory(p.Argv, opts...)
}

// Entry returns p as a column of a matrix (package matrixrun):
// its name, its file, the factory that runs it from the repository's root
// root, and its declared verdicts.
func (p Program) Entry(root string) catalog.Entry {
	return catalog.Entry{Name: p.Name, Sources: strings.Join(p.File(), " "), New: p.Factory(root), Expect: p.Expect}
}

// File is the program's file, from the repository's root, then its
// arguments: ["recipes/php/laravel.php", "seconds"].
func (p Program) File() []string {
	for i, a := range p.Argv {
		if strings.HasPrefix(a, "recipes/") {
			return p.Argv[i:]
		}
	}
	return p.Argv[len(p.Argv)-1:]
}

// Libraries are the PHP frameworks' locks, served over the line protocol
// by programs that use them as their documentation shows: Symfony's Lock
// component on a RedisStore, with the store's default initial TTL and
// with the lock's TTL as the store's, and Laravel's cache lock, at its
// default (Cache::lock($name): no expiry) and with seconds. Each is declared in
// its own column of the grid in package catalog (catalog.GridFile), and
// needs its Debian packages (langtest.SymfonyLock, langtest.Laravel).
func Libraries() []Program {
	php := func(name string, needs []string, file ...string) Program {
		return Program{
			Name:   name,
			Argv:   slices.Concat(libraryPHPCommand(), file),
			Expect: strict(catalog.Declare(catalog.Entry{Name: name}).Expect),
			Needs:  append([]string{langtest.PHP}, needs...),
		}
	}
	return []Program{
		php("symfony-lock", []string{langtest.SymfonyLock}, "recipes/php/symfony-lock.php"),
		php("symfony-lock-store-ttl", []string{langtest.SymfonyLock}, "recipes/php/symfony-lock.php", "store-ttl"),
		php("laravel", []string{langtest.Laravel}, "recipes/php/laravel.php"),
		php("laravel-seconds", []string{langtest.Laravel}, "recipes/php/laravel.php", "seconds"),
	}
}

// Kinds are the PHP frameworks' read-write locks and semaphores, served
// over the line protocol with the words of their kind (docs/exec.md):
// Symfony's shared locks (symfony-lock.php shared: acquireRead beside
// acquire, on the Lock component's RedisStore), Symfony's Semaphore
// component on its RedisStore, and Laravel's concurrency limiter
// (Redis::funnel). The semaphores have the program's number of permits,
// LOCKLAB_PERMITS (2 unless set), and count whole seconds, as does the
// suite with them (granularity=1000); their ready lines name the keys
// they keep their state under ({K}:time and {K}:weight, K1 to Kn). Each is
// declared in its column of its kind's grid (catalog.KindGridFile), on
// the properties of its kind (locktest.KindProperties; docs/kinds.md,
// "The PHP libraries", gives the reasons), and n/a on those of the other
// kind.
func Kinds() []Program {
	php := func(name string, kind strategy.Kind, needs []string, file ...string) Program {
		declared, _ := catalog.DeclaredKind(kind).Expect(name)
		return Program{
			Name:   name,
			Argv:   slices.Concat(libraryPHPCommand(), file),
			Expect: kindExpect(kind, declared),
			Needs:  append([]string{langtest.PHP}, needs...),
			Kind:   kind,
		}
	}
	funnel := php("laravel-funnel", strategy.Semaphore,
		[]string{langtest.LaravelRedis}, "recipes/php/laravel-funnel.php")
	funnel.ContractFails = map[string]string{
		"wrong-type": "the limiter's acquire script MGETs the slots, which reads a key holding a hash as nil, and SETs the first nil one with EX and no NX: it takes a slot over whatever the key holds (Illuminate/Redis/Limiters/ConcurrencyLimiter.php, lockScript, lines 126-128 in 8.83)",
	}
	return []Program{
		php("symfony-lock-shared", strategy.ReadWrite,
			[]string{langtest.SymfonyLock}, "recipes/php/symfony-lock.php", "shared"),
		php("symfony-semaphore", strategy.Semaphore,
			[]string{langtest.SymfonySemaphore}, "recipes/php/symfony-semaphore.php"),
		funnel,
	}
}

// KindRecipes are PHP copies of the Go columns of the kinds' grids, each
// declared to give its Go column's verdicts there (and n/a on the other
// kind's properties): refcountrwlock.php, e-chip/redis-rwlock's scripts as
// strategy/refcountrwlock sends them, whose ready line names the keys the
// Go strategy declares (strategy.Keyed, strategy.SideKeyed).
func KindRecipes() []Program {
	const name, kind = "refcountrwlock", strategy.ReadWrite
	declared, _ := catalog.DeclaredKind(kind).Expect(name)
	return []Program{{
		Name:   name,
		Argv:   append(PHPCommand(), "recipes/php/"+name+".php"),
		Expect: kindExpect(kind, declared),
		Needs:  []string{langtest.PHP},
		Kind:   kind,
	}}
}

// kindExpect is declared, a column of kind's grid, with n/a on the other
// kind's properties, strict.
func kindExpect(kind strategy.Kind, declared locktest.Expect) locktest.Expect {
	other := strategy.Semaphore
	if kind == strategy.Semaphore {
		other = strategy.ReadWrite
	}
	return locktest.Expect{Breaks: declared.Breaks, NotApplicable: append(slices.Clone(declared.NotApplicable), locktest.KindProperties(other)...), Strict: true}
}

// PHP returns the PHP recipes, in the catalog's order: one per Go column
// but luatoken-renew-fence, whose renewal and fencing tokens the documents
// do not have, and the Redlock columns, which the documents do not have
// either. Each is declared to give its Go column's verdicts.
func PHP() []Program {
	var out []Program
	for _, e := range catalog.Strategies() {
		if e.Name == "luatoken-renew-fence" || e.Masters > 1 {
			continue
		}
		out = append(out, Program{
			Name:   e.Name,
			Argv:   append(PHPCommand(), "recipes/php/"+e.Name+".php"),
			Expect: strict(e.Expect),
		})
	}
	return out
}

// PHPCommand is how the PHP recipes are run: php without its ini files,
// loading only the redis extension (after igbinary, which Debian's
// php-redis is built with), when that works on this machine; else plain
// php. It starts in about half the time of php with the two dozen
// extensions of Debian's default ini files, and the suite starts one
// program per simulated client, a hundred or more per column.
func PHPCommand() []string { return append([]string(nil), phpCommand()...) }

var phpCommand = sync.OnceValue(func() []string {
	for _, argv := range [][]string{
		{"php", "-n", "-d", "extension=igbinary", "-d", "extension=redis"},
		{"php", "-n", "-d", "extension=redis"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		probe := append(append([]string(nil), argv...), "-r", `echo class_exists("Redis") ? "yes" : "no";`)
		out, err := exec.CommandContext(ctx, probe[0], probe[1:]...).CombinedOutput()
		cancel()
		if err == nil && string(out) == "yes" {
			return argv
		}
	}
	return []string{"php"}
})

// libraryPHPCommand is PHPCommand with the mbstring extension as well,
// when it loads: Laravel requires it (Debian's php-illuminate-support
// depends on php-mbstring) and calls it where it handles an error, so
// that without it a lost connection ends in "Call to undefined function
// mb_strpos()" rather than in Laravel's own handling.
func libraryPHPCommand() []string { return slices.Clone(libraryPHP()) }

var libraryPHP = sync.OnceValue(func() []string {
	argv := append(PHPCommand(), "-d", "extension=mbstring")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	probe := append(append([]string(nil), argv...), "-r", `echo function_exists("mb_strpos") ? "yes" : "no";`)
	if out, err := exec.CommandContext(ctx, probe[0], probe[1:]...).CombinedOutput(); err == nil && string(out) == "yes" {
		return argv
	}
	return PHPCommand()
})

// RedisPy is redis-py's Lock (Debian's python3-redis 4.3.4), through the
// adapter recipes/python/redis_py_lock.py. From its code: acquire is one
// SET key <uuid1 token> NX PX ttl (the token kept in a thread-local);
// release and extend are Lua scripts that act only while the key holds
// the token; a second release raises LockError without sending anything.
// So it is luatoken's column: it breaks only where every TTL lock without
// renewal and fencing does, and it has nothing to crash between, no stale
// lock to take over and no clock to skew. Its verdicts are the column
// redis-py of the grid in package catalog (catalog.GridFile); the
// topology properties are not run on it ("-" there).
func RedisPy() Program {
	return Program{
		Name:   "redis-py",
		Argv:   []string{Python, "recipes/python/redis_py_lock.py"},
		Expect: strict(catalog.Declare(catalog.Entry{Name: "redis-py"}).Expect),
		Needs:  []string{langtest.RedisPy},
	}
}

// strict is e with n/a declared too.
func strict(e locktest.Expect) locktest.Expect {
	e.Strict = true
	return e
}

// TokenLock is the example program of docs/exec.md: SET NX PX with a
// token, and Lua scripts that release and refresh it only while the key
// holds the token.
func TokenLock() Program {
	p := RedisPy()
	p.Name = "token-lock"
	p.Argv = []string{Python, "recipes/python/token_lock.py"}
	return p
}
