package sim

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A server whose ACL user may not run a command, or touch a key, answers
// NOPERM. That says nothing about the lock: a check that met it ends with
// an error naming the rule to add, never with a verdict. A script that
// runs such a command fails with an error of its own, which names the
// script's digest and line, not the command ("ERR The user executing the
// script can't run this command or subcommand script: <sha1>, on
// @user_script:9."): the rule is then read from that line of the script,
// whose body a client sent (EVAL, SCRIPT LOAD) in this check or an
// earlier one, and Script kept. A script the server had cached before
// (its clients sent only EVALSHA) has its line named instead.

// Permissions remembers the first NOPERM a check met.
type Permissions struct {
	mu    sync.Mutex
	first error
}

// scripts are the bodies of the scripts the clients sent, by their SHA1
// in hex, for as long as the process runs: a script is sent whole once
// per server, the first time a client runs it.
var scripts struct {
	mu     sync.Mutex
	bodies map[string]string
}

// Script keeps the body of a script that args send (EVAL, EVAL_RO, SCRIPT
// LOAD), so that a NOPERM raised inside it can be traced to its command.
// A nil p keeps nothing.
func (p *Permissions) Script(args [][]byte) {
	if p == nil || len(args) < 2 {
		return
	}
	var body []byte
	switch name := strings.ToUpper(string(args[0])); {
	case name == "EVAL" || name == "EVAL_RO":
		body = args[1]
	case name == "SCRIPT" && len(args) > 2 && strings.EqualFold(string(args[1]), "LOAD"):
		body = args[2]
	default:
		return
	}
	d := sha1.Sum(body)
	digest := hex.EncodeToString(d[:])
	scripts.mu.Lock()
	defer scripts.mu.Unlock()
	if scripts.bodies == nil {
		scripts.bodies = map[string]string{}
	}
	if _, ok := scripts.bodies[digest]; !ok {
		scripts.bodies[digest] = string(body)
	}
}

// scriptBody returns the body of the script whose digest is d, if a
// client sent it.
func scriptBody(d string) (string, bool) {
	scripts.mu.Lock()
	defer scripts.mu.Unlock()
	b, ok := scripts.bodies[d]
	return b, ok
}

// Saw records a NOPERM reply to cmd, or the error of a script that the
// ACL rules stopped, and reports whether reply was one. A nil p records
// nothing.
func (p *Permissions) Saw(cmd []string, reply string) bool {
	if p == nil || !isPermissionError(reply) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first == nil {
		p.first = p.permissionError(cmd, reply)
	}
	return true
}

// Err returns the first NOPERM met, or nil.
func (p *Permissions) Err() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// scriptDenied begins what Redis 7 answers for a command inside a script
// that the ACL rules do not let the user run: "ERR The user executing the
// script can't run this command or subcommand", "... can't access at
// least one of the keys mentioned in the command arguments", "... can't
// publish to the channel mentioned in the command".
const scriptDenied = "The user executing the script can't"

// isPermissionError says whether reply is an ACL rule's refusal: NOPERM,
// or a script's.
func isPermissionError(reply string) bool {
	return strings.HasPrefix(reply, "NOPERM") || strings.Contains(reply, scriptDenied)
}

// ruleHint ends every message: where the rules are listed.
const ruleHint = "to the user's ACL rules (docs/lockcheck.md lists the rules the suite needs)"

// permissionError says what the ACL rules lack for cmd, which Redis
// refused with reply.
func (p *Permissions) permissionError(cmd []string, reply string) error {
	name, what := "", ""
	if len(cmd) > 0 {
		name = strings.ToLower(cmd[0])
		what = strings.ToUpper(name)
		if len(cmd) > 1 {
			what += " " + cmd[1]
		}
	}
	if strings.Contains(reply, scriptDenied) {
		return p.scriptError(cmd, what, reply)
	}
	switch {
	case strings.Contains(reply, "keys"):
		return fmt.Errorf("the server's user may not run %s (%s): add a key pattern (~pattern) that covers its key %s", what, reply, ruleHint)
	case strings.Contains(reply, "channels"):
		return fmt.Errorf("the server's user may not run %s (%s): add a channel pattern (&pattern) that covers its channel %s", what, reply, ruleHint)
	}
	return fmt.Errorf("the server's user may not run %s (%s): add +%s %s", what, reply, name, ruleHint)
}

// scriptLine finds the digest and the line that a script's error names
// (Redis 7: "script: <sha1>, on @user_script:<line>.").
var scriptLine = regexp.MustCompile(`script: ([0-9a-f]{40}), on @user_script:(\d+)`)

// scriptCall finds the commands a line of a script calls by name.
var scriptCall = regexp.MustCompile(`(?:redis|server)\.p?call\(\s*["']([A-Za-z][A-Za-z0-9_|-]*)["']`)

// scriptError says what the ACL rules lack for the script that cmd (its
// words, what) ran, which Redis stopped with reply: the command on the
// line it names, read from the script's body when a client sent it.
func (p *Permissions) scriptError(cmd []string, what, reply string) error {
	var keys []string
	if len(cmd) > 2 {
		if n, err := strconv.Atoi(cmd[2]); err == nil && n >= 0 && 3+n <= len(cmd) {
			keys = cmd[3 : 3+n]
		}
	}
	switch {
	case strings.Contains(reply, "keys"):
		return fmt.Errorf("the server's user may not run %s (%s): add a key pattern (~pattern) that covers the keys of its commands (it was given %s) %s", what, reply, strings.Join(keys, ", "), ruleHint)
	case strings.Contains(reply, "channel"):
		return fmt.Errorf("the server's user may not run %s (%s): add a channel pattern (&pattern) that covers the channel it publishes to %s", what, reply, ruleHint)
	}
	var calls []string
	m := scriptLine.FindStringSubmatch(reply)
	if m != nil {
		if body, ok := scriptBody(m[1]); ok {
			line, _ := strconv.Atoi(m[2])
			if lines := strings.Split(body, "\n"); line >= 1 && line <= len(lines) {
				for _, c := range scriptCall.FindAllStringSubmatch(lines[line-1], -1) {
					rule := "+" + strings.ToLower(c[1])
					if !slices.Contains(calls, rule) {
						calls = append(calls, rule)
					}
				}
			}
		}
	}
	switch {
	case len(calls) == 0 && m != nil:
		return fmt.Errorf("the server's user may not run a command of the script %s (%s): add the rule of the command on line %s of the script %s", what, reply, m[2], ruleHint)
	case len(calls) == 0:
		return fmt.Errorf("the server's user may not run a command of the script %s (%s): add the rule of the command it ran %s", what, reply, ruleHint)
	case len(calls) == 1:
		return fmt.Errorf("the server's user may not run a command of the script %s (%s): add %s %s", what, reply, calls[0], ruleHint)
	}
	return fmt.Errorf("the server's user may not run a command of the script %s (%s): add whichever of %s it lacks %s", what, reply, strings.Join(calls, ", "), ruleHint)
}
