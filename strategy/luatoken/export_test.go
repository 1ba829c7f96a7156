package luatoken

// HubState returns how many channels the notification hub of s tracks and
// whether its goroutine runs (0 and false without WithNotify).
func HubState(s *Strategy) (channels int, running bool) {
	if s.hub == nil {
		return 0, false
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.chans), s.hub.running
}
