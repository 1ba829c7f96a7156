package servererr

import "testing"

// BenchmarkAnswer: what the model costs a fault layer per command, with
// no state on and with one.
func BenchmarkAnswer(b *testing.B) {
	cmds := map[string]Command{
		"GET":            cmd("GET", "lock"),
		"SET NX PX":      cmd("SET", "lock", "token", "NX", "PX", "30000"),
		"EVAL":           cmd("EVAL", releaseLua, "1", "lock", "token"),
		"EVALSHA":        cmd("EVALSHA", sha(releaseLua), "1", "lock", "token"),
		"MULTI DEL EXEC": nil,
	}
	for _, st := range []State{0, OOM} {
		for name, c := range cmds {
			b.Run(name+"/"+stateName(st), func(b *testing.B) {
				s := &Server{}
				conn := s.NewConn()
				conn.Answer(cmd("SCRIPT", "LOAD", releaseLua))
				if st != 0 {
					s.Begin(st)
				}
				for b.Loop() {
					if c == nil {
						conn.Answer(cmd("MULTI"))
						conn.Answer(cmd("DEL", "lock"))
						conn.Answer(cmd("EXEC"))
						continue
					}
					conn.Answer(c)
				}
			})
		}
	}
}

func stateName(s State) string {
	if s == 0 {
		return "none"
	}
	return s.String()
}
