// Package langtest lets tests that run locks written in other languages
// find what they need: PHP with phpredis, Debian's python3-redis, and
// libfaketime. When one is missing the test is skipped, saying what to
// install (make setup-langs), unless LOCKLAB_REQUIRE_LANGS=1, which the
// continuous integration sets: then it fails.
package langtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locklab/locklab/internal/faketime"
)

// Python is the interpreter that has Debian's python3-redis: the system's,
// not whichever python3 comes first on PATH.
const Python = "/usr/bin/python3"

// What a test may need.
const (
	PHP      = "php"      // php-cli with the redis extension (php-redis)
	RedisPy  = "redis-py" // python3-redis, for Python
	Faketime = "faketime" // libfaketime, for skewed clocks
	// Symfony's Lock component, php-symfony-lock, on PHP's include path.
	SymfonyLock = "php-symfony-lock"
	// Laravel's cache and Redis components, php-illuminate-cache and
	// php-illuminate-redis, on PHP's include path.
	Laravel = "php-illuminate-cache"
	// Symfony's Semaphore component, php-symfony-semaphore, on PHP's
	// include path.
	SymfonySemaphore = "php-symfony-semaphore"
	// Laravel's Redis component alone (Redis::funnel),
	// php-illuminate-redis, on PHP's include path.
	LaravelRedis = "php-illuminate-redis"
)

var (
	mu      sync.Mutex
	checked = map[string]string{} // what → why it is missing ("" when present)
)

// Need skips tb (fails it under LOCKLAB_REQUIRE_LANGS=1) unless every one
// of what is installed.
func Need(tb testing.TB, what ...string) {
	tb.Helper()
	msg := Missing(what...)
	if msg == "" {
		return
	}
	if os.Getenv("LOCKLAB_REQUIRE_LANGS") == "1" {
		tb.Fatalf("LOCKLAB_REQUIRE_LANGS=1 and %s", msg)
	}
	tb.Skip(msg)
}

// Missing says, in one line, which of what is not installed and how to
// install it; "" when everything is.
func Missing(what ...string) string {
	var missing []string
	for _, w := range what {
		if why := check(w); why != "" {
			missing = append(missing, why)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return strings.Join(missing, "; ") + " (make setup-langs installs them)"
}

func check(what string) string {
	mu.Lock()
	defer mu.Unlock()
	if why, ok := checked[what]; ok {
		return why
	}
	var why string
	switch what {
	case PHP:
		why = run("php-cli with php-redis", "php", "-r", `exit(class_exists("Redis") ? 0 : 3);`)
	case RedisPy:
		why = run("python3-redis for "+Python, Python, "-c", "import redis")
	case SymfonyLock:
		why = onIncludePath("php-symfony-lock", "Symfony/Component/Lock/autoload.php")
	case Laravel:
		why = onIncludePath("php-illuminate-cache and php-illuminate-redis", "Illuminate/Cache/autoload.php", "Illuminate/Redis/autoload.php")
	case SymfonySemaphore:
		why = onIncludePath("php-symfony-semaphore", "Symfony/Component/Semaphore/autoload.php")
	case LaravelRedis:
		why = onIncludePath("php-illuminate-redis", "Illuminate/Redis/autoload.php")
	case Faketime:
		if _, err := faketime.Find(); err != nil {
			why = err.Error()
		}
	default:
		why = "unknown requirement " + what
	}
	checked[what] = why
	return why
}

func run(name string, argv ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return name + " missing: " + strings.Join(argv, " ") + ": " + strings.TrimSpace(err.Error()+" "+string(out))
	}
	return ""
}

// onIncludePath says that the packages named are missing unless PHP finds
// every one of files on its include path, where Debian's PHP packages
// install their autoloaders (/usr/share/php).
func onIncludePath(packages string, files ...string) string {
	var check []string
	for _, f := range files {
		check = append(check, fmt.Sprintf("stream_resolve_include_path(%q)", f))
	}
	return run(packages+" (their autoloaders on PHP's include path)", "php", "-n", "-r", "exit("+strings.Join(check, " && ")+" ? 0 : 3);")
}
