package redistest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

const (
	defaultImage = "redis"
	defaultTag   = "7"
	// The image scripts/redis-image.sh builds from the local redis-server
	// (make setup): preferred, when the engine has it, to the default.
	localImage = "locklab/redis"
	localTag   = "local"

	defaultExpire = 30 * time.Minute
	redisPort     = "6379/tcp"

	// Label put on every container this package starts, so that leftovers
	// can be found: docker ps -a --filter label=org.locklab.redistest
	containerLabel = "org.locklab.redistest"
)

// serverArgs are given to the image's entry point. Both the official redis
// image (whose entry point prepends redis-server to arguments that start
// with "-") and locklab/redis:local (whose entry point is redis-server)
// accept them. Protected mode must be off: connections arrive through the
// engine's port forwarding, not from the container's loopback.
var serverArgs = []string{
	"--bind", "0.0.0.0",
	"--protected-mode", "no",
	"--save", "",
	"--appendonly", "no",
}

// Image returns the Docker image named by LOCKLAB_REDIS_IMAGE and
// LOCKLAB_REDIS_TAG, as repository and tag, by default redis and 7.
// LOCKLAB_REDIS_IMAGE may carry its own tag (locklab/redis:local) when
// LOCKLAB_REDIS_TAG is not set. When neither is set, [StartDocker] runs
// locklab/redis:local instead if the engine has it.
func Image() (repository, tag string) {
	repository, tag = os.Getenv(EnvImage), os.Getenv(EnvTag)
	if repository == "" {
		repository = defaultImage
	}
	if tag == "" {
		// A colon after the last slash starts a tag; one before it is a
		// registry's port.
		if i := strings.LastIndex(repository, ":"); i > strings.LastIndex(repository, "/") {
			repository, tag = repository[:i], repository[i+1:]
		}
	}
	if tag == "" {
		tag = defaultTag
	}
	return repository, tag
}

// StartDocker starts Redis in a new container through the Docker engine
// named by DOCKER_HOST, or the default one, and waits until it answers
// PING. The image is [Image], or locklab/redis:local when neither
// LOCKLAB_REDIS_IMAGE nor LOCKLAB_REDIS_TAG is set and the engine has it
// (make setup builds it); it is pulled only when it is missing. The
// container publishes Redis on a loopback port, and is removed by
// [Server.Close] or, should the program die first, by the engine after
// LOCKLAB_REDIS_EXPIRE (30m by default). The error matches [ErrNoDocker]
// when no engine answers, and [ErrNoImage] when the image is missing and
// cannot be pulled.
func StartDocker(ctx context.Context) (*Server, error) {
	expire, err := expireAfter()
	if err != nil {
		return nil, err
	}

	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = pool.Client.PingWithContext(pingCtx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrNoDocker, dockerEndpoint(), err)
	}

	repository, tag := Image()
	if os.Getenv(EnvImage) == "" && os.Getenv(EnvTag) == "" {
		if _, err := pool.Client.InspectImage(localImage + ":" + localTag); err == nil {
			repository, tag = localImage, localTag
		}
	}
	image := repository + ":" + tag

	// dockertest pulls a missing image itself, but without a context or a
	// way to tell its error from others: look first, and pull here.
	if _, err := pool.Client.InspectImage(image); err != nil {
		if !errors.Is(err, dc.ErrNoSuchImage) {
			return nil, fmt.Errorf("docker: inspecting image %s: %w", image, err)
		}
		pullErr := pool.Client.PullImage(dc.PullImageOptions{
			Repository:   repository,
			Tag:          tag,
			OutputStream: io.Discard,
			Context:      ctx,
		}, dc.AuthConfiguration{})
		if pullErr != nil {
			return nil, fmt.Errorf("%w: image %s is not on the engine and pulling it failed: %v",
				ErrNoImage, image, pullErr)
		}
	}

	host, bindIP := publishHost()
	resource, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository:   repository,
		Tag:          tag,
		Cmd:          serverArgs,
		ExposedPorts: []string{redisPort},
		PortBindings: map[dc.Port][]dc.PortBinding{
			redisPort: {{HostIP: bindIP, HostPort: ""}},
		},
		Labels: map[string]string{containerLabel: strconv.Itoa(os.Getpid())},
	}, func(hc *dc.HostConfig) {
		// Removed as soon as it stops, whether by Close or by Expire.
		hc.AutoRemove = true
		hc.RestartPolicy = dc.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return nil, fmt.Errorf("docker: starting a container of %s: %w", image, err)
	}
	// The safety net: the engine stops the container (and, as it is
	// auto-removed, removes it) after expire even if this program dies.
	_ = resource.Expire(uint(expire / time.Second))

	s := &Server{Kind: KindDocker, image: image}
	s.stop = func() error {
		err := pool.Purge(resource)
		if err != nil && isGone(err) {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("redistest: removing container %.12s: %w", resource.Container.ID, err)
		}
		return nil
	}

	addr, err := waitDocker(ctx, pool, resource, host)
	if err == nil {
		s.Addr = addr
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		s.Version, err = s.version(ctx)
		cancel()
	}
	if err != nil {
		logs := containerLogs(pool, resource.Container.ID)
		_ = s.Close()
		if logs != "" {
			err = fmt.Errorf("%w\ncontainer log:\n%s", err, logs)
		}
		return nil, fmt.Errorf("docker: container %.12s of %s: %w", resource.Container.ID, image, err)
	}
	return s, nil
}

// waitDocker waits until the container answers PING and returns the
// address it answered on. That is the published port, as dockertest
// reports it. Should that port not answer within a few seconds, the
// container's own address on its network is tried as well: on Linux the
// host routes to it directly, which helps where the engine's port
// forwarding is broken.
func waitDocker(ctx context.Context, pool *dockertest.Pool, r *dockertest.Resource, host string) (string, error) {
	ctx, cancel := readyContext(ctx)
	defer cancel()

	port := r.GetPort(redisPort)
	if port == "" {
		return "", fmt.Errorf("the engine published no port for %s", redisPort)
	}
	published := net.JoinHostPort(host, port)
	direct := ""
	if ip := containerIP(r.Container); ip != "" {
		direct = net.JoinHostPort(ip, "6379")
	}

	start := time.Now()
	lastCheck := start
	var lastErr error
	for {
		if lastErr = ping(ctx, published, time.Second); lastErr == nil {
			return published, nil
		}
		if direct != "" && time.Since(start) > 3*time.Second {
			if ping(ctx, direct, time.Second) == nil {
				return direct, nil
			}
		}
		if time.Since(lastCheck) > time.Second {
			lastCheck = time.Now()
			c, err := pool.Client.InspectContainerWithContext(r.Container.ID, ctx)
			if err != nil && isGone(err) {
				return "", errors.New("the container stopped before Redis answered")
			}
			if err == nil && !c.State.Running {
				return "", fmt.Errorf("the container stopped before Redis answered: %s", c.State.String())
			}
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			tried := published
			if direct != "" {
				tried += " or " + direct
			}
			return "", fmt.Errorf("no answer to PING on %s in time: %v", tried, lastErr)
		}
	}
}

// containerIP returns the container's address on its (first) network.
func containerIP(c *dc.Container) string {
	if c == nil || c.NetworkSettings == nil {
		return ""
	}
	if c.NetworkSettings.IPAddress != "" {
		return c.NetworkSettings.IPAddress
	}
	for _, n := range c.NetworkSettings.Networks {
		if n.IPAddress != "" {
			return n.IPAddress
		}
	}
	return ""
}

// publishHost returns the host to reach published ports on, and the host
// address to publish them on. A local engine publishes on loopback only; a
// remote one (DOCKER_HOST=tcp://host:port) on all its addresses, reached
// through its host name.
func publishHost() (host, bindIP string) {
	if u, err := url.Parse(os.Getenv("DOCKER_HOST")); err == nil && u.Scheme == "tcp" {
		if h := u.Hostname(); h != "" {
			if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
				return h, "0.0.0.0"
			}
		}
	}
	return "127.0.0.1", "127.0.0.1"
}

func dockerEndpoint() string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return "the default socket"
}

func expireAfter() (time.Duration, error) {
	v := os.Getenv(EnvExpire)
	if v == "" {
		return defaultExpire, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("redistest: %s=%q: want a Go duration of at least 1s, such as 30m", EnvExpire, v)
	}
	return d, nil
}

// isGone reports whether err says the container is gone already.
func isGone(err error) bool {
	var noSuch *dc.NoSuchContainer
	if errors.As(err, &noSuch) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "no such container") || strings.Contains(msg, "is already in progress")
}

// containerLogs returns the last lines the container wrote, if it can.
func containerLogs(pool *dockertest.Pool, id string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	err := pool.Client.Logs(dc.LogsOptions{
		Context:      ctx,
		Container:    id,
		OutputStream: &out,
		ErrorStream:  &out,
		Stdout:       true,
		Stderr:       true,
		Tail:         "20",
	})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out.String())
}
