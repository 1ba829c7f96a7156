// A clock shim that redistest preloads into redis-server to move its time
// of day: see redistest/clock.go.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t *shift_ns;

__attribute__((constructor)) static void clockshift_init(void) {
	const char *path = getenv("LOCKLAB_CLOCK_SHIFT_FILE");
	if (path == NULL) return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return;
	void *m = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m != MAP_FAILED) shift_ns = m;
}

static int64_t shift(void) { return shift_ns ? __atomic_load_n(shift_ns, __ATOMIC_RELAXED) : 0; }

static int realtime(clockid_t id) {
	return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
	long r = syscall(SYS_clock_gettime, id, ts);
	if (r != 0 || !realtime(id)) return (int)r;
	int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + shift();
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

int gettimeofday(struct timeval *tv, void *tz) {
	(void)tz;
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
	if (tv != NULL) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return 0;
}

time_t time(time_t *t) {
	struct timespec ts;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
	if (t != NULL) *t = ts.tv_sec;
	return ts.tv_sec;
}
