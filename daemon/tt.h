/* TEMPORARY timing probe (not for commit) */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static inline void
tt(const char *what, const char *id)
{
	struct timespec ts;
	char b[160];
	int fd, n;

	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(b, sizeof(b), "%ld %ld.%06ld %s %s\n", (long)getpid(), (long)ts.tv_sec,
	    ts.tv_nsec / 1000, what, id ? id : "-");
	if ((fd = open("/tmp/rttd-work/tt.log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
		(void)!write(fd, b, (size_t)n);
		close(fd);
	}
}
