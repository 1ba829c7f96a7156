package matrixrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/locklab/locklab/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPages: a column links to its own page, else to the page of its name
// cut at a "-", else to the fallback; in Chinese to the Chinese page where
// there is one; and to nothing when no page exists under the root.
func TestPages(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"docs/luatoken.md", "docs/zh/luatoken.md", "docs/getsetcompare-003.md", "docs/peers.md"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), nil, 0o644))
	}
	en := Pages(root, report.English, "")
	assert.Equal(t, "docs/luatoken.md", en("luatoken"))
	assert.Equal(t, "docs/luatoken.md", en("luatoken-renew-fence"))
	assert.Equal(t, "docs/getsetcompare-003.md", en("getsetcompare-003"))
	assert.Empty(t, en("redsync"))
	assert.Empty(t, en("php recipes/php/setnxpx.php"))
	zh := Pages(root, report.Chinese, "peers")
	assert.Equal(t, "docs/zh/luatoken.md", zh("luatoken-renew-fence"))
	assert.Equal(t, "docs/getsetcompare-003.md", zh("getsetcompare-003"), "the English page where there is no Chinese one")
	assert.Equal(t, "docs/peers.md", zh("redsync"))
	assert.Empty(t, Pages(t.TempDir(), report.English, "peers")("luatoken"), "no docs, no link")
}
