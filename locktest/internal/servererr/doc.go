// Package servererr says which error replies a real Redis server can
// give a command, and when: the states a server goes through (loading
// its dataset, busy with a script, a replica cut from its master, out of
// memory, its script cache emptied) and, in each, which commands it
// refuses and with what reply.
//
// It follows the server: each command's flags as COMMAND INFO reports
// them (a static table, checked against a real server by the tests), and
// the checks processCommand in Redis's server.c makes of them, in their
// order.
package servererr
