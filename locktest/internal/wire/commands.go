package wire

import (
	"bytes"
	"strconv"
	"strings"
)

// isAuth says whether a command logs in: AUTH, or HELLO with its AUTH
// option.
func isAuth(args [][]byte) bool {
	if len(args) == 0 {
		return false
	}
	switch strings.ToUpper(string(args[0])) {
	case "AUTH":
		return true
	case "HELLO":
		return helloAuth(args) > 0
	}
	return false
}

// encodeCommand writes a command as a RESP array of bulk strings.
func encodeCommand(args [][]byte) []byte {
	var b bytes.Buffer
	b.WriteByte('*')
	b.WriteString(strconv.Itoa(len(args)))
	b.WriteString("\r\n")
	for _, a := range args {
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(a)))
		b.WriteString("\r\n")
		b.Write(a)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// helloAuth returns the place of HELLO's AUTH option among args, or -1.
func helloAuth(args [][]byte) int {
	for i := 2; i < len(args); i++ {
		if strings.EqualFold(string(args[i]), "AUTH") {
			return i
		}
	}
	return -1
}

// replyReset answers RESET, which would undo the login and the database
// the proxy's connection to Redis was opened with: what follows would run
// as the default user, in database 0.
var replyReset = []byte("-ERR RESET is refused: it would undo the suite's login and database on the connection to Redis\r\n")
