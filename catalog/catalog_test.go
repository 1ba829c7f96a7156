package catalog_test

import (
	"testing"

	"github.com/locklab/locklab/catalog"
	"github.com/locklab/locklab/locktest"
	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestConformance runs the suite over every strategy and checks each
// verdict against its declaration.
func TestConformance(t *testing.T) {
	for _, e := range catalog.Strategies() {
		t.Run(e.Name, func(t *testing.T) {
			locktest.Run(t, e.New, e.Expect)
		})
	}
}
