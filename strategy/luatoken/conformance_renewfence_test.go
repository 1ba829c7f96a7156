package luatoken_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
)

// TestConformanceRenewFence runs the conformance suite on luatoken with
// auto-renewal and fencing tokens, and checks every
// verdict against the declaration in package catalog.
func TestConformanceRenewFence(t *testing.T) {
	e, ok := catalog.Lookup("luatoken-renew-fence")
	if !ok {
		t.Fatal("luatoken-renew-fence is missing from the catalog")
	}
	locktest.Run(t, e.New, e.Expect)
}
