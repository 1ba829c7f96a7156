package redistest_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
)

func startGuarded(t *testing.T, o redistest.GuardOptions) *redistest.Guarded {
	t.Helper()
	g, err := redistest.StartGuarded(context.Background(), o)
	if errors.Is(err, redistest.ErrNoRedisServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestConnectURL: a server named by a URL is logged in to as the URL
// says, user, password, database and TLS, on every connection; a wrong
// password, or a certificate nobody vouches for, is refused with a
// message that says so, never skipped.
func TestConnectURL(t *testing.T) {
	ctx := context.Background()
	g := startGuarded(t, redistest.GuardOptions{User: "app", Rules: []string{"~app:*", "+@all"}, DB: 5, TLS: true})
	if !strings.HasPrefix(g.URL, "rediss://app:") || !strings.HasSuffix(g.URL, "/5") {
		t.Fatalf("URL = %s", g.URL)
	}
	s, err := redistest.Connect(ctx, g.URL, g.TLSFiles)
	if err != nil {
		t.Fatalf("Connect(%s): %v", g.URL, err)
	}
	c, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if who, err := redis.String(c.Do("ACL", "WHOAMI")); err != nil || who != "app" {
		t.Errorf("ACL WHOAMI = %q, %v; want app", who, err)
	}
	if _, err := c.Do("SET", "app:x", "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Admin.Do("SELECT", 5); err != nil {
		t.Fatal(err)
	}
	if v, err := redis.String(g.Admin.Do("GET", "app:x")); err != nil || v != "1" {
		t.Errorf("the key is not in database 5: GET = %q, %v", v, err)
	}
	if _, err := c.Do("SET", "other:x", "1"); err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Errorf("SET outside the user's keys: err = %v, want NOPERM", err)
	}

	u, _ := url.Parse(g.URL)
	u.User = url.UserPassword("app", "wrong")
	if _, err := redistest.Connect(ctx, u.String(), g.TLSFiles); !errors.Is(err, redistest.ErrLogin) || !strings.Contains(err.Error(), "refused the password of user app") {
		t.Errorf("Connect with a wrong password = %v, want ErrLogin naming the user", err)
	}
	if strings.Contains(errString(redistest.Connect(ctx, u.String(), g.TLSFiles)), "wrong") {
		t.Error("the error shows the password")
	}
	noCA := g.TLSFiles
	noCA.CA = ""
	if _, err := redistest.Connect(ctx, g.URL, noCA); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Connect without the CA = %v, want a certificate error", err)
	}
	plain := strings.Replace(g.URL, "rediss://", "redis://", 1)
	if _, err := redistest.Connect(ctx, plain, g.TLSFiles); err == nil {
		t.Error("Connect by redis:// with TLS files: no error, want one")
	}
}

func errString(_ *redistest.Server, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, addr, user, pw string
		db                 int
		err                string
	}{
		{in: "127.0.0.1:6379", addr: "127.0.0.1:6379"},
		{in: "redis://h:7000", addr: "h:7000"},
		{in: "redis://:s3cret@h/5", addr: "h:6379", pw: "s3cret", db: 5},
		{in: "redis://s3cret@h", addr: "h:6379", pw: "s3cret"},
		{in: "redis://app:pw@h:1/2", addr: "h:1", user: "app", pw: "pw", db: 2},
		{in: "redis://h/x", err: "database"},
		{in: "http://h", err: "scheme"},
		{in: "localhost", err: "neither host:port"},
	} {
		addr, l, err := redistest.ParseTarget(tc.in, redistest.TLSFiles{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTarget(%q) = %v, want an error about %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || addr != tc.addr || l.Username != tc.user || l.Password != tc.pw || l.DB != tc.db {
			t.Errorf("ParseTarget(%q) = %s %+v %v", tc.in, addr, l, err)
		}
	}
}
