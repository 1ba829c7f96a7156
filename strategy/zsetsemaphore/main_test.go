package zsetsemaphore_test

import (
	"testing"

	"github.com/locklab/locklab/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }
