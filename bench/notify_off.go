//go:build !locklab_notify

package bench

// notifySubject returns nil until luatoken.WithNotify exists: build with
// -tags locklab_notify to measure luatoken woken on release.
func notifySubject() *Subject { return nil }
