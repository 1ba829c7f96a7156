package servererr

import (
	"strconv"
	"strings"
)

// A script meets some states only as it runs, at the calls it makes,
// and which calls it makes depends on the data. So the model does not
// answer such a script in the server's place: it gives a script to run
// instead, the same script behind a shim that refuses its calls as the
// server in the state would. The shim asks the server for each
// command's flags (COMMAND INFO, which scripts may call) and refuses a
// call with an error raised by redis.call, returned by redis.pcall, as
// the server's checks do (scriptCall, script.c):
//
//   - refuseWrites (writes stopped: MISCONF, NOREPLICAS): every write,
//     until one has run (scriptVerifyWriteCommandAllow), so every one;
//   - refuseGrowth (past maxmemory): a write that may grow memory, until
//     a write has run: a write that grows no memory runs, and from then
//     on the server checks no more (scriptVerifyOOM);
//   - refuseFresh (a stale replica, for a script that declares
//     allow-stale): every command without the stale flag
//     (scriptVerifyAllowStale).
//
// The shim takes the script's first line (after its shebang, the
// second), so that its lines keep their numbers; an error it raises names the shim's script and line 1 where
// the server names the script's own and the call's line.
const shim = `local redis = (function(r, reply, mode) ` +
	`local wrote = false ` +
	`local function refuse(name) ` +
	`if wrote or type(name) ~= "string" then return nil end ` +
	`local info = r.call("COMMAND", "INFO", name)[1] ` +
	`if not info then return nil end ` +
	`local has = {} ` +
	`for _, f in ipairs(info[3]) do has[type(f) == "table" and f.ok or f] = true end ` +
	`if mode == "fresh" then if has.stale then return nil end return reply end ` +
	`if not has.write then return nil end ` +
	`if mode == "growth" and not has.denyoom then wrote = true return nil end ` +
	`return reply ` +
	`end ` +
	`local w = setmetatable({}, {__index = r}) ` +
	`w.call = function(name, ...) local e = refuse(name) if e then error({err = e}) end return r.call(name, ...) end ` +
	`w.pcall = function(name, ...) local e = refuse(name) if e then return {err = e} end return r.pcall(name, ...) end ` +
	`return w ` +
	`end)(redis, %s, %s); `

// What the shim refuses.
const (
	refuseWrites = "writes"
	refuseGrowth = "growth"
	refuseFresh  = "fresh"
)

// replyStale is the error a script's call gets on a stale replica for
// a command without the stale flag.
const replyStale = "ERR Can not execute the command on a stale replica"

// shimmed returns body behind the shim: the calls mode says get reply.
func shimmed(body, reply, mode string) string {
	s := strings.Replace(shim, "%s", strconv.Quote(reply), 1)
	s = strings.Replace(s, "%s", strconv.Quote(mode), 1)
	if shebang, rest, ok := strings.Cut(body, "\n"); ok && strings.HasPrefix(body, "#!") {
		return shebang + "\n" + s + rest
	}
	return s + body
}

// failing returns a script that gives reply and does nothing else.
func failing(reply string) Command {
	return Command{"EVAL", "return redis.error_reply(" + strconv.Quote(reply) + ")", "0"}
}

// asEval returns cmd, an EVAL or EVALSHA, as an EVAL of body with the
// same keys and arguments.
func asEval(cmd Command, body string) Command {
	out := make(Command, 0, len(cmd))
	return append(append(out, "EVAL", body), cmd[2:]...)
}
