package recipe_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/locklab/locklab/redistest"
	"github.com/locklab/locklab/strategy/internal/recipe"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { redistest.Main(m) }

var echo = redis.NewScript(1, `return ARGV[1]`)

// DoBounded and EvalBounded send their command under every kind of
// context, and send nothing once the context is done.
func TestBounded(t *testing.T) {
	p := redistest.Pool(t)
	key := redistest.Key(t)
	withDeadline, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	cancellable, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"deadline", withDeadline}, {"cancellable", cancellable}} {
		name, ctx := tc.name, tc.ctx
		c, err := p.GetContext(ctx)
		require.NoError(t, err)
		_, err = recipe.DoBounded(ctx, c, "SET", key, name)
		require.NoError(t, err, name)
		got, err := redis.String(recipe.EvalBounded(ctx, c, echo, key, name))
		require.NoError(t, err, name)
		require.Equal(t, name, got)
		require.NoError(t, c.Close())
	}

	done, cancel3 := context.WithTimeout(context.Background(), time.Hour)
	cancel3()
	c, err := p.GetContext(context.Background())
	require.NoError(t, err)
	defer c.Close()
	_, err = recipe.DoBounded(done, c, "SET", key, "done")
	require.ErrorIs(t, err, context.Canceled)
	_, err = recipe.EvalBounded(done, c, echo, key, "done")
	require.ErrorIs(t, err, context.Canceled)
	got, err := redis.String(c.Do("GET", key))
	require.NoError(t, err)
	require.Equal(t, "cancellable", got, "a command was sent under a done context")
}
