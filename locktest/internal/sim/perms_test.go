package sim

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScriptPermissions: a script the ACL rules stop names the rule to
// add, read from the line of the script that Redis 7 names, once a client
// has sent the script whole; its line otherwise; the keys and the channel
// it was refused as a mutex's NOPERM does.
func TestScriptPermissions(t *testing.T) {
	body := "local now = redis.call('TIME')\nredis.call(\"ZREMRANGEBYSCORE\", KEYS[1], '-inf', now[1])\nif redis.call('zcard', KEYS[1]) < 2 then redis.call('zadd', KEYS[1], now[1], ARGV[1]) end"
	d := sha1.Sum([]byte(body))
	digest := hex.EncodeToString(d[:])
	var p Permissions
	p.Script([][]byte{[]byte("EVAL"), []byte(body), []byte("1"), []byte("k")})
	denied := func(line string) string {
		return "ERR The user executing the script can't run this command or subcommand script: " + digest + ", on @user_script:" + line + "."
	}
	cmd := []string{"EVALSHA", digest, "1", "K", "t"}
	for reply, want := range map[string]string{
		denied("1"): "add +time to the user's ACL rules",
		denied("2"): "add +zremrangebyscore to the user's ACL rules",
		denied("3"): "add whichever of +zcard, +zadd it lacks to the user's ACL rules",
		"ERR The user executing the script can't run this command or subcommand script: 0123456789012345678901234567890123456789, on @user_script:4.":           "add the rule of the command on line 4 of the script to the user's ACL rules",
		"ERR The user executing the script can't run this command or subcommand":                                                                                "add the rule of the command it ran to the user's ACL rules",
		"ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: " + digest + ", on @user_script:2.": "add a key pattern (~pattern) that covers the keys of its commands (it was given K)",
		"ERR The user executing the script can't publish to the channel mentioned in the command script: " + digest + ", on @user_script:2.":                    "add a channel pattern (&pattern) that covers the channel it publishes to",
	} {
		var q Permissions
		assert.True(t, q.Saw(cmd, reply), reply)
		assert.ErrorContains(t, q.Err(), want, reply)
		assert.ErrorContains(t, q.Err(), "the server's user may not run", reply)
	}
	var q Permissions
	assert.False(t, q.Saw(cmd, "ERR Error running script (call to f_x): @user_script:1: user_script:1: oops"), "a script's own error is no NOPERM")
	assert.NoError(t, q.Err())
	assert.True(t, q.Saw([]string{"EVALSHA", digest, "1", "K"}, "NOPERM this user has no permissions to run the 'evalsha' command"))
	assert.ErrorContains(t, q.Err(), "add +evalsha to the user's ACL rules")
}
