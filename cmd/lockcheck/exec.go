package main

import (
	"flag"
	"fmt"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest/process"
)

// execFlags are -exec and -name: check a lock written in any language, a
// program that speaks the line protocol of package locktest/process
// (docs/exec.md), in place of the catalog's strategies.
type execFlags struct {
	command, name *string
}

func addExecFlags(fs *flag.FlagSet) execFlags {
	return execFlags{
		command: fs.String("exec", "", "check the lock `COMMAND` serves over the line protocol of docs/exec.md (run with sh -c, once per simulated client), in place of the catalog's strategies; no verdict is declared"),
		name:    fs.String("name", "", "the `name` of the -exec column (default: the command)"),
	}
}

// apply puts the -exec column in place of the catalog's strategies;
// strategy is the -strategy flag.
func (x execFlags) apply(opts *options, strategy string) error {
	if *x.command == "" {
		if *x.name != "" {
			return usageError{"-name names the column of -exec: give -exec COMMAND too"}
		}
		return nil
	}
	if strategy != "" {
		return usageError{"-exec checks its own program: drop -strategy"}
	}
	name := *x.name
	if name == "" {
		name = *x.command
	}
	opts.parts[0].Entries = []catalog.Entry{execEntry(name, *x.command)}
	opts.undeclared = true
	return nil
}

// execEntry is the column of a program: sh -c command, once per client.
func execEntry(name, command string) catalog.Entry {
	return catalog.Entry{
		Name:    name,
		Sources: fmt.Sprintf("-exec %q", command),
		New:     process.Factory([]string{"sh", "-c", command}, process.WithName(name)),
	}
}
