package redistest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
)

// GuardOptions says how a [Guarded] server wants to be logged in to.
type GuardOptions struct {
	// User is an ACL user to create, with Rules (ACL SETUSER's rules,
	// such as "~app:*" or "+get"); "" leaves the default user, which
	// then wants a password.
	User  string
	Rules []string
	// DB is the database the URL selects.
	DB int
	// TLS makes the server speak TLS only, with a certificate authority
	// and certificates made for the occasion; clients are asked for a
	// certificate of their own.
	TLS bool
}

// Guarded is a private redis-server that wants what a user's server
// wants: a password or an ACL user, a database, TLS. Tests run the suite
// on it as a user would, by its URL.
type Guarded struct {
	*Server // Addr and Login are the user's, as URL says
	// URL names the server as a user would: redis:// or rediss://, with
	// the user, password and database.
	URL string
	// TLSFiles are the PEM files of the authority that signed the
	// server's certificate, and of a client certificate it accepts.
	TLSFiles TLSFiles
	// Admin is a connection of the default user, with every right, for
	// what a test checks behind the user's back.
	Admin redis.Conn
}

// StartGuarded starts a [Guarded] server, as [StartProcess] does, and sets
// it up as o says. Close stops it and removes its files.
func StartGuarded(ctx context.Context, o GuardOptions) (*Guarded, error) {
	dir, err := os.MkdirTemp("", "locklab-guarded-")
	if err != nil {
		return nil, err
	}
	var extra []string
	var files TLSFiles
	tlsPort := 0
	if o.TLS {
		if files, err = makeCertificates(dir); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("guarded: certificates: %w", err)
		}
		if tlsPort, err = freePort(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		extra = append(extra, "--tls-port", strconv.Itoa(tlsPort),
			"--tls-cert-file", filepath.Join(dir, "server.crt"), "--tls-key-file", filepath.Join(dir, "server.key"),
			"--tls-ca-cert-file", files.CA, "--tls-auth-clients", "yes")
	}
	srv, err := StartProcess(ctx, extra...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	stop := srv.stop
	srv.stop = func() error {
		err := stop()
		os.RemoveAll(dir)
		return err
	}
	g := &Guarded{Server: srv, TLSFiles: files}
	if err := g.guard(ctx, o, tlsPort); err != nil {
		srv.Close()
		return nil, fmt.Errorf("guarded: %w", err)
	}
	return g, nil
}

// guard sets the passwords and the user, then makes Addr, Login and URL
// the user's.
func (g *Guarded) guard(ctx context.Context, o GuardOptions, tlsPort int) error {
	admin, err := g.Dial(ctx)
	if err != nil {
		return err
	}
	adminPw, userPw := newPassword(), newPassword()
	user := o.User
	if user == "" {
		userPw = adminPw
	} else {
		rules := append([]string{user, "reset", "on", ">" + userPw}, o.Rules...)
		if _, err := redis.DoContext(admin, ctx, "ACL", redis.Args{"SETUSER"}.AddFlat(rules)...); err != nil {
			admin.Close()
			return fmt.Errorf("ACL SETUSER %s: %w", strings.Join(o.Rules, " "), err)
		}
	}
	if _, err := redis.DoContext(admin, ctx, "CONFIG", "SET", "requirepass", adminPw); err != nil {
		admin.Close()
		return err
	}
	g.Admin = admin // still logged in: CONFIG SET leaves it so
	closeAdmin := g.stop
	g.stop = func() error { admin.Close(); return closeAdmin() }

	g.Login = Login{Username: user, Password: userPw, DB: o.DB}
	scheme := "redis"
	if tlsPort != 0 {
		g.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
		scheme = "rediss"
		if g.Login.TLS, err = g.TLSFiles.Config("127.0.0.1"); err != nil {
			return err
		}
	}
	u := url.URL{Scheme: scheme, Host: g.Addr, Path: "/" + strconv.Itoa(o.DB), User: url.UserPassword(user, userPw)}
	g.URL = u.String()
	return nil
}

func newPassword() string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// makeCertificates writes into dir an authority (ca.crt), a certificate
// for 127.0.0.1 and localhost signed by it (server.crt, server.key) and a
// client certificate (client.crt, client.key), valid for a day.
func makeCertificates(dir string) (TLSFiles, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "locklab test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return TLSFiles{}, err
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, base string) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, base+".crt"), "CERTIFICATE", der); err != nil {
			return err
		}
		return writePEM(filepath.Join(dir, base+".key"), "EC PRIVATE KEY", keyDER)
	}
	if err := writePEM(filepath.Join(dir, "ca.crt"), "CERTIFICATE", caDER); err != nil {
		return TLSFiles{}, err
	}
	if err := leaf(2, "localhost", x509.ExtKeyUsageServerAuth, "server"); err != nil {
		return TLSFiles{}, err
	}
	if err := leaf(3, "locklab test client", x509.ExtKeyUsageClientAuth, "client"); err != nil {
		return TLSFiles{}, err
	}
	return TLSFiles{CA: filepath.Join(dir, "ca.crt"), Cert: filepath.Join(dir, "client.crt"),
		Key: filepath.Join(dir, "client.key")}, nil
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}
