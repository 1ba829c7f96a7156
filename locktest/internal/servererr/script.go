package servererr

import (
	"crypto/sha1"
	"encoding/hex"
	"regexp"
	"strings"
)

// scriptFlag is a flag a script declares in its shebang ("#!lua
// flags=no-writes") or a function in its registration.
type scriptFlag uint8

const (
	noWrites scriptFlag = 1 << iota
	allowOOM
	allowStale
	noCluster
	allowCrossSlot
)

var scriptFlagNames = map[string]scriptFlag{
	"no-writes":             noWrites,
	"allow-oom":             allowOOM,
	"allow-stale":           allowStale,
	"no-cluster":            noCluster,
	"allow-cross-slot-keys": allowCrossSlot,
}

// script is what the package reads of a script's text.
type script struct {
	sha    string
	body   string
	compat bool       // no shebang: the server checks each call the script makes
	flags  scriptFlag // with a shebang: the flags it declares
	// writes says whether a script without shebang may write: it
	// calls a write command, or one the model cannot name. The server
	// checks a script's right to write at its first write call
	// (scriptVerifyWriteCommandAllow, scriptVerifyOOM, script.c).
	writes bool
}

// parseScript reads a script's text as EVAL and SCRIPT LOAD send it.
func parseScript(body string) script {
	sum := sha1.Sum([]byte(body))
	s := script{sha: hex.EncodeToString(sum[:]), body: body}
	if flags, ok := shebangFlags(body); ok {
		s.flags = flags
		return s
	}
	s.compat = true
	s.writes = mayWrite(body)
	return s
}

// shebangFlags reads a script's shebang as the server does
// (evalExtractShebangFlags, eval.c): "#!lua", then "flags=" and a comma
// separated list. ok is false for a script without one, or with one the
// server rejects (then it runs under the command's own flags, and fails).
func shebangFlags(body string) (flags scriptFlag, ok bool) {
	if !strings.HasPrefix(body, "#!") {
		return 0, false
	}
	line, _, found := strings.Cut(body, "\n")
	if !found {
		return 0, false
	}
	parts := strings.Fields(line)
	if len(parts) == 0 || parts[0] != "#!lua" {
		return 0, false
	}
	for _, p := range parts[1:] {
		list, isFlags := strings.CutPrefix(p, "flags=")
		if !isFlags {
			return 0, false
		}
		for _, name := range strings.Split(list, ",") {
			if name == "" {
				continue
			}
			f, known := scriptFlagNames[name]
			if !known {
				return 0, false
			}
			flags |= f
		}
	}
	return flags, true
}

// callRe finds a script's calls of the server: redis.call and
// redis.pcall (server.call too), and the command's name when it is
// written as a string.
var callRe = regexp.MustCompile(`\b(?:redis|server)\.p?call\s*\(\s*(?:'([^']*)'|"([^"]*)")?`)

// mayWrite says whether a script calls a write command: one the table
// flags write, or one it does not know, or whose name is not a string.
func mayWrite(body string) bool {
	for _, m := range callRe.FindAllStringSubmatchIndex(body, -1) {
		name := ""
		switch {
		case m[2] >= 0:
			name = body[m[2]:m[3]]
		case m[4] >= 0:
			name = body[m[4]:m[5]]
		}
		if f, known := Lookup(Command{name}); !known || f&CmdWrite != 0 {
			return true
		}
	}
	return false
}

// toCmdFlags is what declared flags make of a script command's flags
// (scriptFlagsToCmdFlags, script.c): a script that declares flags writes
// and may grow memory unless it says otherwise, and runs on a stale
// replica only with allow-stale.
func (sf scriptFlag) toCmdFlags(f Flag) Flag {
	f &^= CmdStale | CmdDenyOOM | CmdWrite
	if sf&(allowOOM|noWrites) == 0 {
		f |= CmdDenyOOM
	}
	if sf&noWrites == 0 {
		f |= CmdWrite
	}
	if sf&allowStale != 0 {
		f |= CmdStale
	}
	return f
}

// registerRe finds the functions a library registers: by position,
// redis.register_function('name', callback), or by name,
// redis.register_function{function_name='name', callback=..., flags={...}}.
var (
	registerRe = regexp.MustCompile(`register_function\s*(\(\s*(?:'([^']*)'|"([^"]*)")|\(?\s*\{)`)
	fnNameRe   = regexp.MustCompile(`function_name\s*=\s*(?:'([^']*)'|"([^"]*)")`)
	fnFlagsRe  = regexp.MustCompile(`flags\s*=\s*\{([^}]*)\}`)
	quotedRe   = regexp.MustCompile(`'([^']*)'|"([^"]*)"`)
)

// parseLibrary returns the flags of each function a library's code
// (FUNCTION LOAD's argument) registers, by name.
func parseLibrary(code string) map[string]scriptFlag {
	out := map[string]scriptFlag{}
	ms := registerRe.FindAllStringSubmatchIndex(code, -1)
	for i, m := range ms {
		switch {
		case m[4] >= 0:
			out[code[m[4]:m[5]]] = 0
			continue
		case m[6] >= 0:
			out[code[m[6]:m[7]]] = 0
			continue
		}
		end := len(code)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		args := code[m[1]:end]
		n := fnNameRe.FindStringSubmatch(args)
		if n == nil {
			continue
		}
		var flags scriptFlag
		if fl := fnFlagsRe.FindStringSubmatch(args); fl != nil {
			for _, q := range quotedRe.FindAllStringSubmatch(fl[1], -1) {
				flags |= scriptFlagNames[q[1]+q[2]]
			}
		}
		out[n[1]+n[2]] = flags
	}
	return out
}
