package redistest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// Environment variables for a server spoken to over TLS (rediss://).
const (
	// EnvCA names a PEM file of the certificate authorities to trust; the
	// system's when unset.
	EnvCA = "LOCKLAB_REDIS_CA"
	// EnvCert and EnvKey name the PEM files of a client certificate and
	// its key, for a server that asks for one (tls-auth-clients).
	EnvCert = "LOCKLAB_REDIS_CERT"
	EnvKey  = "LOCKLAB_REDIS_KEY"
	// EnvServerName is the name the server's certificate must carry, when
	// it is not the host the URL names.
	EnvServerName = "LOCKLAB_REDIS_SERVER_NAME"
)

// TLSFiles says how to check a TLS server and how to present a client
// certificate to it. Verification is never skipped.
type TLSFiles struct {
	CA         string // PEM file of the authorities to trust; the system's when empty
	Cert, Key  string // PEM files of a client certificate and its key, both or neither
	ServerName string // the name to verify; the host dialed when empty
}

// TLSFilesFromEnv reads TLSFiles from LOCKLAB_REDIS_CA, LOCKLAB_REDIS_CERT,
// LOCKLAB_REDIS_KEY and LOCKLAB_REDIS_SERVER_NAME.
func TLSFilesFromEnv() TLSFiles {
	return TLSFiles{CA: os.Getenv(EnvCA), Cert: os.Getenv(EnvCert), Key: os.Getenv(EnvKey),
		ServerName: os.Getenv(EnvServerName)}
}

// Config returns the TLS configuration the files describe, for a server
// at host.
func (f TLSFiles) Config(host string) (*tls.Config, error) {
	c := &tls.Config{ServerName: f.ServerName, MinVersion: tls.VersionTLS12}
	if c.ServerName == "" {
		c.ServerName = host
	}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("the CA file: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the CA file %s holds no PEM certificate", f.CA)
		}
	}
	switch {
	case f.Cert != "" && f.Key != "":
		cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("the client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	case f.Cert != "" || f.Key != "":
		return nil, errors.New("a client certificate needs both its file and its key's")
	}
	return c, nil
}

// Login is how to log in to a server: the user and password of AUTH, the
// database to select, and TLS.
type Login struct {
	Username string
	Password string
	DB       int
	TLS      *tls.Config // nil: plain TCP
}

// dialOptions returns redigo's options for l.
func (l Login) dialOptions() []redis.DialOption {
	opts := []redis.DialOption{
		redis.DialConnectTimeout(ConnectTimeout),
		redis.DialReadTimeout(ReadTimeout),
		redis.DialWriteTimeout(WriteTimeout),
	}
	if l.Password != "" {
		opts = append(opts, redis.DialUsername(l.Username), redis.DialPassword(l.Password))
	}
	if l.DB != 0 {
		opts = append(opts, redis.DialDatabase(l.DB))
	}
	if l.TLS != nil {
		opts = append(opts, redis.DialUseTLS(true), redis.DialTLSConfig(l.TLS))
	}
	return opts
}

// ParseTarget reads where a server is and how to log in to it: host:port,
// or a URL redis://[[user]:password@]host[:port][/db], or rediss:// for TLS,
// checked as files says.
func ParseTarget(target string, files TLSFiles) (addr string, l Login, err error) {
	if !strings.Contains(target, "://") {
		if _, _, err := net.SplitHostPort(target); err != nil {
			return "", l, fmt.Errorf("%q is neither host:port nor a redis:// or rediss:// URL: %w", target, err)
		}
		return target, l, nil
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", l, fmt.Errorf("not a URL: %w", redactURLError(err))
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return "", l, fmt.Errorf("the scheme is %q, want redis or rediss", u.Scheme)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "6379"
	}
	addr = net.JoinHostPort(host, port)
	if u.User != nil {
		l.Username = u.User.Username()
		l.Password, _ = u.User.Password()
		if l.Password == "" && l.Username != "" {
			// redis://secret@host: the one part is the password, as
			// redis-cli and redigo read it.
			l.Username, l.Password = "", l.Username
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if l.DB, err = strconv.Atoi(db); err != nil || l.DB < 0 {
			return "", l, fmt.Errorf("the database %q is not a number of 0 or more", db)
		}
	}
	if u.Scheme == "rediss" {
		if l.TLS, err = files.Config(host); err != nil {
			return "", l, err
		}
	} else if files != (TLSFiles{}) {
		return "", l, errors.New("TLS files given for a redis:// URL: use rediss:// to speak TLS")
	}
	return addr, l, nil
}

// redactURLError drops the URL, which may hold a password, from a parse
// error.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ErrLogin is returned when a server answers but refuses the login: no
// password given where one is needed, or a wrong one.
var ErrLogin = errors.New("redistest: the server refused the login")

// loginError makes a refused login say what to do; other errors it
// returns as they are.
func loginError(addr string, l Login, err error) error {
	var re redis.Error
	if !errors.As(err, &re) {
		return err
	}
	switch msg := string(re); {
	case strings.HasPrefix(msg, "NOAUTH"):
		return &loginErr{fmt.Sprintf("the server at %s wants a password: give it as redis://[user:password@]%s[/db]", addr, addr), err}
	case strings.HasPrefix(msg, "WRONGPASS"), strings.Contains(msg, "invalid password"):
		who := "the default user"
		if l.Username != "" {
			who = "user " + l.Username
		}
		return &loginErr{fmt.Sprintf("the server at %s refused the password of %s", addr, who), err}
	}
	return err
}

// loginErr is a refused login, explained.
type loginErr struct {
	msg string
	err error
}

func (e *loginErr) Error() string        { return e.msg + " (" + e.err.Error() + ")" }
func (e *loginErr) Unwrap() error        { return e.err }
func (e *loginErr) Is(target error) bool { return target == ErrLogin }
