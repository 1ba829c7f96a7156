package conntest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// MasterName is the name under which Sentinel watches the server.
const MasterName = "locklab"

// Sentinel starts a redis-server in Sentinel mode that watches the server
// as the master MasterName, and returns its address; it is stopped when the
// test ends. It skips the test when redis-server is not on PATH.
func Sentinel(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skipf("no redis-server on PATH to run Sentinel: %v", err)
	}
	host, port, err := net.SplitHostPort(Addr())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, sport, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %s\nbind 127.0.0.1\ndir %s\nsentinel resolve-hostnames yes\nsentinel monitor %s %s %s 1\n",
		sport, dir, MasterName, host, port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf, "--sentinel")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := redis.DialContext(context.Background(), "tcp", addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(time.Second))
		if err == nil {
			_, err = redis.Strings(c.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName))
			c.Close()
			if err == nil {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Sentinel at %s did not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
