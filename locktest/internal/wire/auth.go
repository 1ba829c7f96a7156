package wire

import (
	"crypto/subtle"
	"strings"
)

// The answers of the proxy's own login, worded as Redis's.
var (
	replyOK       = []byte("+OK\r\n")
	replyNoAuth   = []byte("-NOAUTH Authentication required.\r\n")
	replyWrongPw  = []byte("-WRONGPASS invalid username-password pair or user is disabled.\r\n")
	replyAuthArgs = []byte("-ERR wrong number of arguments for 'auth' command\r\n")
)

// login handles a command of a connection that must give the proxy's
// Secret, or that gives it again. It returns the proxy's own answer, when
// the command goes no further; otherwise the command to relay, which for
// a HELLO that logged in is the HELLO without its AUTH option: the proxy's
// connection to Redis is logged in already, as the suite's user.
func (c *Conn) login(args [][]byte) (relay [][]byte, answer []byte) {
	name := ""
	if len(args) > 0 {
		name = strings.ToUpper(string(args[0]))
	}
	switch name {
	case "AUTH":
		if len(args) != 2 && len(args) != 3 {
			return nil, replyAuthArgs
		}
		if !c.secretIs(args[len(args)-1]) {
			return nil, replyWrongPw
		}
		c.authed = true
		c.p.loggedIn()
		return nil, replyOK
	case "HELLO":
		i := helloAuth(args)
		if i < 0 {
			break
		}
		if i+2 >= len(args) {
			return nil, []byte("-ERR Syntax error in HELLO option 'auth'\r\n")
		}
		if !c.secretIs(args[i+2]) {
			return nil, replyWrongPw
		}
		c.authed = true
		c.p.loggedIn()
		rest := append(append([][]byte{}, args[:i]...), args[i+3:]...)
		return rest, nil
	}
	if c.authed {
		return args, nil
	}
	if c.p.cfg.NoAuth != nil && !c.p.everLoggedIn() {
		c.p.cfg.NoAuth()
	}
	return nil, replyNoAuth
}

// secretIs compares a password with the proxy's Secret in constant time.
func (c *Conn) secretIs(pw []byte) bool {
	return subtle.ConstantTimeCompare(pw, []byte(c.p.cfg.Secret)) == 1
}

// loggedIn notes that a connection of the proxy gave its Secret.
func (p *Proxy) loggedIn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.authed = true
}

// everLoggedIn says whether any connection of the proxy gave its Secret.
func (p *Proxy) everLoggedIn() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.authed
}
