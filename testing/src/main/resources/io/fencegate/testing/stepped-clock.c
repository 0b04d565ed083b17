/*
 * A wall clock a test steps, for a process libfaketime cannot be preloaded into (redis-server:
 * jemalloc calls clock_gettime while libfaketime initialises, and libfaketime gives up). Only the
 * wall clock moves: gettimeofday, time and clock_gettime of the REALTIME clocks return the true time
 * plus the seconds in the file STEPPED_CLOCK_FILE ("+20", "-3600", "+0.2", "0"); CLOCK_MONOTONIC is left
 * alone, as an NTP step leaves it. The file is read again when 5 ms have passed on the monotonic
 * clock since the last read. No malloc, no dlsym, no stdio: the real clock is the system call, so
 * nothing here can call back into an allocator that is still starting.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_ns;
static long long next_read_ns;

static int real_clock(clockid_t id, struct timespec *ts) {
    return (int) syscall(SYS_clock_gettime, id, ts);
}

static long long offset(void) {
    struct timespec mono;
    real_clock(CLOCK_MONOTONIC, &mono);
    long long now = mono.tv_sec * 1000000000LL + mono.tv_nsec;
    if (now >= next_read_ns) {
        next_read_ns = now + 5000000LL;
        const char *path = getenv("STEPPED_CLOCK_FILE");
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            char text[32];
            ssize_t n = read(fd, text, sizeof text - 1);
            close(fd);
            if (n > 0) {
                text[n] = 0;
                offset_ns = (long long) (strtod(text, NULL) * 1e9);
            }
        }
    }
    return offset_ns;
}

static int realtime(clockid_t id) {
    return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int r = real_clock(id, ts);
    if (r == 0 && realtime(id)) {
        long long t = ts->tv_sec * 1000000000LL + ts->tv_nsec + offset();
        ts->tv_sec = t / 1000000000LL;
        ts->tv_nsec = t % 1000000000LL;
    }
    return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void) tz;
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0 && tv) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return r;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}
