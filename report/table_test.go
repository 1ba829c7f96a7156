package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
)

// TestAlign: align writes what text/tabwriter wrote before Chinese headers
// needed it, byte for byte.
func TestAlign(t *testing.T) {
	for _, rows := range [][][]string{
		{{"property", "setnxpx", "luatoken"}, {"exclusion", "holds", "holds"}, {"holder-overrun", "breaks", "holds!"}},
		{{"property", "a", "b", "c"}, {"x", "", "n/a", ""}, {"stale-takeover-race", "error!", "", "holds"}},
		{{"property", "only"}, {"exclusion", "holds"}},
		{{"property"}, {"exclusion"}},
	} {
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		for _, row := range rows {
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
		table(rows).align(&got)
		assert.Equal(t, want.String(), got.String())
	}
	var b bytes.Buffer
	table{{"性质", "setnxpx"}, {"exclusion", "holds"}}.align(&b)
	assert.Equal(t, "性质       setnxpx\nexclusion  holds\n", b.String(), "a Chinese character is two columns wide")
}
