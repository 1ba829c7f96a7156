package servererr

import "strings"

// Command is a command as a client sends it: its name, then its
// arguments ("SET", "k", "v", "NX", "PX", "30000").
type Command []string

// FromArgs makes a Command of arguments read off the wire.
func FromArgs(args [][]byte) Command {
	c := make(Command, len(args))
	for i, a := range args {
		c[i] = string(a)
	}
	return c
}

// Name is the command's name in capitals, a container's subcommand with
// it ("CLIENT SETNAME").
func (c Command) Name() string {
	if len(c) == 0 {
		return ""
	}
	if containers[strings.ToLower(c[0])] && len(c) > 1 {
		return strings.ToUpper(c[0] + " " + c[1])
	}
	return strings.ToUpper(c[0])
}

// key is the command's entry in the table: "set", "client|setname".
func (c Command) key() string {
	if len(c) == 0 {
		return ""
	}
	name := strings.ToLower(c[0])
	if containers[name] && len(c) > 1 {
		return name + "|" + strings.ToLower(c[1])
	}
	return name
}

// is says whether the command is one of names, as the table writes
// them ("eval", "script|load"), whatever the case it was sent in.
func (c Command) is(names ...string) bool {
	if len(c) == 0 {
		return false
	}
	for _, n := range names {
		name, sub, isSub := strings.Cut(n, "|")
		if strings.EqualFold(c[0], name) && (!isSub || len(c) > 1 && strings.EqualFold(c[1], sub)) {
			return true
		}
	}
	return false
}

// upper is the table by names in capitals, as clients mostly send
// them, so that looking a command up costs no lowering.
var upper = func() map[string]Flag {
	m := make(map[string]Flag, len(table))
	for k, f := range table {
		m[strings.ToUpper(k)] = f
	}
	return m
}()

// Lookup returns the flags the table gives the command, as COMMAND INFO
// reports them; ok is false for a command the table does not hold.
func Lookup(c Command) (f Flag, ok bool) {
	if len(c) == 0 {
		return 0, false
	}
	if len(c) == 1 || !c.is("client", "script", "function") {
		if f, ok = table[c[0]]; ok {
			return f, ok
		}
		if f, ok = upper[c[0]]; ok {
			return f, ok
		}
	}
	f, ok = table[c.key()]
	return f, ok
}
