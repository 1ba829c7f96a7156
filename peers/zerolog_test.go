package peers

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/zeromicro/go-zero/core/logx"
)

// TestGoZeroSilent: go-zero's logs are off from the start, its stat logs
// (the CPU and memory it logs every minute once imported) among them,
// whatever writer they would go to: standard output carries peercheck's
// JSON alone.
func TestGoZeroSilent(t *testing.T) {
	var out bytes.Buffer
	logx.SetWriter(logx.NewWriter(&out))
	t.Cleanup(func() { logx.SetWriter(logx.NewWriter(&bytes.Buffer{})) })
	logx.Statf("CPU: %dm", 800)
	logx.Info("a go-zero log")
	assert.Empty(t, out.String())
}
