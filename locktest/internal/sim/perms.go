package sim

import (
	"fmt"
	"strings"
	"sync"
)

// A server whose ACL user may not run a command, or touch a key, answers
// NOPERM. That says nothing about the lock: a check that met it ends with
// an error naming the rule to add, never with a verdict.

// Permissions remembers the first NOPERM a check met.
type Permissions struct {
	mu    sync.Mutex
	first error
}

// Saw records a NOPERM reply to cmd, and reports whether reply was one.
// A nil p records nothing.
func (p *Permissions) Saw(cmd []string, reply string) bool {
	if p == nil || !strings.HasPrefix(reply, "NOPERM") {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first == nil {
		p.first = permissionError(cmd, reply)
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

// permissionError says what the ACL rules lack for cmd, which Redis
// refused with reply.
func permissionError(cmd []string, reply string) error {
	name, what := "", ""
	if len(cmd) > 0 {
		name = strings.ToLower(cmd[0])
		what = strings.ToUpper(name)
		if len(cmd) > 1 {
			what += " " + cmd[1]
		}
	}
	switch {
	case strings.Contains(reply, "keys"):
		return fmt.Errorf("the server's user may not run %s (%s): add a key pattern (~pattern) that covers its key to the user's ACL rules (docs/lockcheck.md lists the rules the suite needs)", what, reply)
	case strings.Contains(reply, "channels"):
		return fmt.Errorf("the server's user may not run %s (%s): add a channel pattern (&pattern) that covers its channel to the user's ACL rules (docs/lockcheck.md lists the rules the suite needs)", what, reply)
	}
	return fmt.Errorf("the server's user may not run %s (%s): add +%s to the user's ACL rules (docs/lockcheck.md lists the rules the suite needs)", what, reply, name)
}
