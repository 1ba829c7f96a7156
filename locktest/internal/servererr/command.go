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

// Lookup returns the flags the newest Redis gives the command, as
// COMMAND INFO reports them; ok is false for a command the table does
// not hold.
func Lookup(c Command) (f Flag, ok bool) { return lookup(c, Version{}) }

// lookup returns the command's flags on version v.
func lookup(c Command, v Version) (f Flag, ok bool) {
	if len(c) == 0 {
		return 0, false
	}
	if len(c) == 1 || !c.is("client", "script", "function") {
		if e := entries[c[0]]; e != nil {
			return e.at(v)
		}
	}
	if e := entries[c.key()]; e != nil {
		return e.at(v)
	}
	return 0, false
}
