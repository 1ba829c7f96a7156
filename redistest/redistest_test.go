package redistest_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/ory/dockertest/v3"
)

func TestMain(m *testing.M) { redistest.Main(m) }

func startCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustNot(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantEqual[T comparable](t *testing.T, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func wantContains(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q is missing from:\n%s", sub, s)
	}
}

// TestStartDocker skips when Docker or the image is missing, unless
// LOCKLAB_REDIS=docker says that Docker is wanted.
func TestStartDocker(t *testing.T) {
	s, err := redistest.StartDocker(startCtx(t))
	forced := os.Getenv("LOCKLAB_REDIS") == "docker"
	switch {
	case forced:
	case errors.Is(err, redistest.ErrNoDocker):
		t.Skipf("SKIPPED the Docker path: %v", err)
	case errors.Is(err, redistest.ErrNoImage):
		t.Skipf("SKIPPED the Docker path: %v\n"+
			"Without a registry, build locklab/redis:local from the local redis-server with scripts/redis-image.sh "+
			"(make setup does), which is then the default.", err)
	}
	mustNot(t, err, "StartDocker")
	wantEqual(t, s.Kind, redistest.KindDocker, "Kind")
	exercise(t, s)
	requireGone(t, s)
}

// TestStartDockerLocalImage: without LOCKLAB_REDIS_IMAGE and
// LOCKLAB_REDIS_TAG, StartDocker runs locklab/redis:local where the engine
// has it (make setup builds it), and says so.
func TestStartDockerLocalImage(t *testing.T) {
	pool, err := dockertest.NewPool("")
	if err == nil {
		err = pool.Client.Ping()
	}
	if err != nil {
		t.Skipf("SKIPPED: no Docker engine: %v", err)
	}
	if _, err := pool.Client.InspectImage("locklab/redis:local"); err != nil {
		t.Skipf("SKIPPED: the engine has no locklab/redis:local (scripts/redis-image.sh builds it): %v", err)
	}
	t.Setenv("LOCKLAB_REDIS_IMAGE", "")
	t.Setenv("LOCKLAB_REDIS_TAG", "")
	s, err := redistest.StartDocker(startCtx(t))
	mustNot(t, err, "StartDocker")
	wantContains(t, s.String(), "(docker locklab/redis:local) at ")
	mustNot(t, s.Close(), "Close")
}

func TestStartProcess(t *testing.T) {
	s, err := redistest.StartProcess(startCtx(t))
	mustNot(t, err, "StartProcess (redis-server must be on PATH: scripts/setup-redis.sh installs it)")
	wantEqual(t, s.Kind, redistest.KindProcess, "Kind")
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Errorf("Addr %q is not on loopback", s.Addr)
	}
	exercise(t, s)
	requireGone(t, s)
}

// TestStartEvicting: the server keeps evicting keys until Close, which
// stops it and its writer.
func TestStartEvicting(t *testing.T) {
	ctx := startCtx(t)
	s, err := redistest.StartEvicting(ctx)
	mustNot(t, err, "StartEvicting (redis-server must be on PATH: scripts/setup-redis.sh installs it)")
	evicted := func() int {
		t.Helper()
		v, err := s.Info(ctx, "stats", "evicted_keys")
		mustNot(t, err, "Info")
		n, err := strconv.Atoi(v)
		mustNot(t, err, "evicted_keys")
		return n
	}
	policy, err := s.Info(ctx, "memory", "maxmemory_policy")
	mustNot(t, err, "Info")
	wantEqual(t, policy, "allkeys-lru", "maxmemory_policy")
	first := evicted()
	if first == 0 {
		t.Errorf("evicted_keys = 0 when StartEvicting returned, wanted more")
	}
	time.Sleep(100 * time.Millisecond)
	if n := evicted(); n <= first {
		t.Errorf("evicted_keys = %d, then %d 100ms later, wanted it to climb", first, n)
	}
	mustNot(t, s.Close(), "Close")
	requireGone(t, s)
}

// exercise checks that s is a working Redis server, then closes it.
func exercise(t *testing.T, s *redistest.Server) {
	t.Helper()
	t.Logf("started %v", s)
	if s.Version == "" {
		t.Error("Version is empty")
	}
	if s.Addr == "" {
		t.Fatal("Addr is empty")
	}

	pool := s.NewPool()
	c, err := pool.GetContext(context.Background())
	mustNot(t, err, "pool.GetContext")
	pong, err := redis.String(c.Do("PING"))
	mustNot(t, err, "PING")
	wantEqual(t, pong, "PONG", "PING's reply")

	key := redistest.Key(t)
	ok, err := redis.String(c.Do("SET", key, "v1", "PX", 60000))
	mustNot(t, err, "SET")
	wantEqual(t, ok, "OK", "SET's reply")
	got, err := redis.String(c.Do("GET", key))
	mustNot(t, err, "GET")
	wantEqual(t, got, "v1", "GET's reply")

	info, err := redis.String(c.Do("INFO", "server"))
	mustNot(t, err, "INFO")
	wantContains(t, info, "redis_version:"+s.Version+"\r\n")

	mustNot(t, c.Close(), "closing the connection")
	mustNot(t, pool.Close(), "closing the pool")
	mustNot(t, s.Close(), "Close")
	mustNot(t, s.Close(), "a second Close")
}

// requireGone checks that nothing answers PING at s.Addr any more.
func requireGone(t *testing.T, s *redistest.Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for ping(s.Addr) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the %s server at %s still answers PING after Close", s.Kind, s.Addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ping reports whether a new connection to addr answers PING.
func ping(addr string) error {
	c, err := redis.Dial("tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Do("PING")
	return err
}

func TestExternal(t *testing.T) {
	p, err := redistest.StartProcess(startCtx(t))
	mustNot(t, err, "StartProcess")
	t.Cleanup(func() { p.Close() })

	for _, env := range []struct{ name, addr, url string }{
		{"REDIS_ADDR", p.Addr, ""},
		{"REDIS_URL", "", "redis://" + p.Addr + "/2"},
	} {
		t.Run(env.name, func(t *testing.T) {
			t.Setenv("LOCKLAB_REDIS", "")
			t.Setenv("REDIS_ADDR", env.addr)
			t.Setenv("REDIS_URL", env.url)
			s, err := redistest.Start(startCtx(t))
			mustNot(t, err, "Start")
			wantEqual(t, s.Kind, redistest.KindExternal, "Kind")
			wantEqual(t, s.Addr, p.Addr, "Addr")
			wantEqual(t, s.Version, p.Version, "Version")

			pool := s.NewPool()
			defer pool.Close()
			c := pool.Get()
			defer c.Close()
			_, err = c.Do("SET", redistest.Key(t), "x", "PX", 60000)
			mustNot(t, err, "SET")
			if env.url != "" {
				// The URL's database is the one used.
				keyspace, err := redis.String(c.Do("INFO", "keyspace"))
				mustNot(t, err, "INFO keyspace")
				wantContains(t, keyspace, "db2:")
			}

			mustNot(t, s.Close(), "Close")
			mustNot(t, ping(p.Addr), "Close of an external server must leave it running")
		})
	}

	t.Run("not answering", func(t *testing.T) {
		t.Setenv("LOCKLAB_REDIS", "")
		t.Setenv("REDIS_URL", "")
		t.Setenv("REDIS_ADDR", closedAddr(t))
		_, err := redistest.Start(startCtx(t))
		if !errors.Is(err, redistest.ErrUnavailable) {
			t.Fatalf("Start with REDIS_ADDR naming no server: got %v, want ErrUnavailable", err)
		}
		wantContains(t, err.Error(), "(from REDIS_ADDR) does not answer")
	})

	t.Run("forced external without one", func(t *testing.T) {
		t.Setenv("LOCKLAB_REDIS", "external")
		t.Setenv("REDIS_URL", "")
		t.Setenv("REDIS_ADDR", "")
		_, err := redistest.Start(startCtx(t))
		if !errors.Is(err, redistest.ErrUnavailable) {
			t.Fatalf("got %v, want ErrUnavailable", err)
		}
		wantContains(t, err.Error(), "neither REDIS_ADDR nor REDIS_URL is set")
	})
}

// closedAddr returns a loopback address that nothing listens on.
func closedAddr(t *testing.T) string {
	s, err := redistest.StartProcess(startCtx(t))
	mustNot(t, err, "StartProcess")
	mustNot(t, s.Close(), "Close")
	return s.Addr
}

func TestHowToWhenNothingWorks(t *testing.T) {
	t.Run("forced process without redis-server", func(t *testing.T) {
		t.Setenv("LOCKLAB_REDIS", "process")
		t.Setenv("PATH", "")
		_, err := redistest.Start(startCtx(t))
		if err == nil {
			t.Fatal("Start found a server with PATH empty")
		}
		if !errors.Is(err, redistest.ErrUnavailable) || !errors.Is(err, redistest.ErrNoRedisServer) {
			t.Errorf("got %v, want ErrUnavailable and ErrNoRedisServer", err)
		}
		for _, want := range []string{"REDIS_ADDR", "redis-server is not on PATH", "LOCKLAB_REDIS_IMAGE",
			"apt-get install redis-server", "brew install redis", "scripts/redis-image.sh"} {
			wantContains(t, err.Error(), want)
		}
		t.Logf("the error reads:\n%v", err)
	})

	t.Run("every step fails", func(t *testing.T) {
		t.Setenv("LOCKLAB_REDIS", "")
		t.Setenv("REDIS_ADDR", "")
		t.Setenv("REDIS_URL", "")
		t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
		t.Setenv("PATH", "")
		_, err := redistest.Start(startCtx(t))
		if err == nil {
			t.Fatal("Start found a server with nothing to find")
		}
		for _, target := range []error{redistest.ErrUnavailable, redistest.ErrNoDocker, redistest.ErrNoRedisServer} {
			if !errors.Is(err, target) {
				t.Errorf("the error does not match %v", target)
			}
		}
		// Each step says why it failed, in order.
		msg := err.Error()
		iExt := strings.Index(msg, "neither REDIS_ADDR nor REDIS_URL is set")
		iDocker := strings.Index(msg, "nonexistent/docker.sock")
		iProc := strings.Index(msg, "redis-server is not on PATH")
		if iExt < 0 || iDocker < iExt || iProc < iDocker {
			t.Errorf("steps missing or out of order:\n%s", msg)
		}
		t.Logf("the error reads:\n%v", err)
	})

	t.Run("bad mode", func(t *testing.T) {
		t.Setenv("LOCKLAB_REDIS", "podman")
		_, err := redistest.Start(startCtx(t))
		if err == nil {
			t.Fatal("Start accepted LOCKLAB_REDIS=podman")
		}
		wantContains(t, err.Error(), "LOCKLAB_REDIS")
	})
}

func TestImage(t *testing.T) {
	for _, c := range []struct{ image, tag, wantRepo, wantTag string }{
		{"", "", "redis", "7"},
		{"locklab/redis", "local", "locklab/redis", "local"},
		{"locklab/redis:local", "", "locklab/redis", "local"},
		{"registry.example:5000/redis", "", "registry.example:5000/redis", "7"},
		{"registry.example:5000/redis:7.2", "", "registry.example:5000/redis", "7.2"},
	} {
		t.Setenv("LOCKLAB_REDIS_IMAGE", c.image)
		t.Setenv("LOCKLAB_REDIS_TAG", c.tag)
		repo, tag := redistest.Image()
		if repo != c.wantRepo || tag != c.wantTag {
			t.Errorf("image %q, tag %q: got %s:%s, want %s:%s", c.image, c.tag, repo, tag, c.wantRepo, c.wantTag)
		}
	}
}

func TestKey(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		k := redistest.Key(t)
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
		if !strings.HasPrefix(k, redistest.KeyPrefix+"TestKey:") {
			t.Fatalf("key %q does not start with %q", k, redistest.KeyPrefix+"TestKey:")
		}
	}
	t.Run("odd name: with*chars?[x] {y}", func(t *testing.T) {
		k := redistest.Key(t)
		name, id, ok := strings.Cut(strings.TrimPrefix(k, redistest.KeyPrefix), ":")
		if !ok {
			t.Fatalf("key %q has no colon after the name", k)
		}
		wantEqual(t, name, "TestKey/odd_name__with_chars__x___y_", "the key's name part")
		wantEqual(t, len(id), 20, "the length of the key's xid")
	})
}

func TestShared(t *testing.T) {
	s := redistest.Shared(t)
	if s != redistest.Shared(t) {
		t.Error("Shared returned two servers in one test binary")
	}
	if s.Version == "" {
		t.Error("Version is empty")
	}

	c := redistest.Pool(t).Get()
	defer c.Close()
	key := redistest.Key(t)
	_, err := c.Do("SET", key, "shared", "PX", 60000)
	mustNot(t, err, "SET")

	// Another pool reaches the same server.
	c2 := redistest.Pool(t).Get()
	defer c2.Close()
	got, err := redis.String(c2.Do("GET", key))
	mustNot(t, err, "GET")
	wantEqual(t, got, "shared", "GET's reply")
}

// Connect takes a running server as it is, and says when none answers.
func TestConnect(t *testing.T) {
	shared := redistest.Shared(t)
	ctx := context.Background()
	s, err := redistest.Connect(ctx, shared.Addr, redistest.TLSFiles{})
	if err != nil {
		t.Fatalf("Connect(%s) = %v", shared.Addr, err)
	}
	if s.Kind != redistest.KindExternal || s.Version != shared.Version {
		t.Errorf("Connect(%s) = kind %q version %q, want %q %q", shared.Addr, s.Kind, s.Version, redistest.KindExternal, shared.Version)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	c, err := redis.Dial("tcp", shared.Addr)
	if err != nil {
		t.Fatalf("the server went away with Close of a connected one: %v", err)
	}
	defer c.Close()
	if _, err := c.Do("PING"); err != nil {
		t.Errorf("PING after Close of a connected one: %v", err)
	}
	for _, addr := range []string{"no-port", closedAddr(t)} {
		if _, err := redistest.Connect(ctx, addr, redistest.TLSFiles{}); err == nil {
			t.Errorf("Connect(%q) = nil error, want one", addr)
		}
	}
}

// TestConnectPassword: a server that wants a password is not "not
// answering": the error says so and where the password goes.
func TestConnectPassword(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not on PATH (make setup installs it)")
	}
	addr := closedAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--requirepass", "s3cret")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the password-protected redis-server did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = redistest.Connect(context.Background(), addr, redistest.TLSFiles{})
	if err == nil || !strings.Contains(err.Error(), "wants a password") || !strings.Contains(err.Error(), "redis://[user:password@]"+addr) || !errors.Is(err, redistest.ErrLogin) {
		t.Errorf("Connect(%s) to a server with a password = %v, want it to say a password is needed and how to give it", addr, err)
	}
}
