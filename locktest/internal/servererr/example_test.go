package servererr_test

import (
	"fmt"
	"strings"

	"github.com/locklab/locklab/locktest/internal/servererr"
)

// A release that WATCHes its key, reads it, then sends MULTI, DEL, EXEC,
// while the server loads its dataset: WATCH and MULTI run, GET and the
// queued DEL are refused, and EXEC aborts the transaction, which the
// server behind the fault layer must be told with DISCARD.
func Example() {
	srv := &servererr.Server{Version: servererr.Version{Major: 7, Minor: 0}}
	conn := srv.NewConn() // one per client connection
	srv.Begin(servererr.Loading)
	for _, c := range []servererr.Command{{"WATCH", "lock"}, {"GET", "lock"}, {"MULTI"}, {"DEL", "lock"}, {"EXEC"}} {
		a := conn.Answer(c)
		fmt.Printf("%-5s %q discard=%v\n", c.Name(), a.Reply, a.Discard)
	}
	srv.End(servererr.Loading)
	// Output:
	// WATCH "" discard=false
	// GET   "LOADING Redis is loading the dataset in memory" discard=false
	// MULTI "" discard=false
	// DEL   "LOADING Redis is loading the dataset in memory" discard=false
	// EXEC  "EXECABORT Transaction discarded because of previous errors." discard=true
}

// The replies a fault layer may give a command in one go, without
// switching a state on (here, their codes).
func ExampleReplies() {
	for _, c := range []servererr.Command{{"MULTI"}, {"PEXPIRE", "lock", "30000"}, {"GET", "lock"}} {
		var codes []string
		for _, r := range servererr.Replies(c) {
			code, _, _ := strings.Cut(r, " ")
			codes = append(codes, code)
		}
		fmt.Println(c.Name(), codes)
	}
	// Output:
	// MULTI []
	// PEXPIRE [LOADING BUSY BUSY READONLY MISCONF NOREPLICAS]
	// GET [LOADING BUSY BUSY MASTERDOWN]
}
