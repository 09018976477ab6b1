/*
 * wake.c - the per-request wake channel; see wake.h.
 *
 * MUST never write into anything but a FIFO, never block sbxd, never
 * follow a symlink. A wake carries no meaning beyond "look again".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/wake.h"

static int
wake_name(char *buf, size_t n, const char *id)
{
	if (!valid_id(id))
		return -1;
	return xsnprintf(buf, n, "%s/%s", SBX_WAKE_DIR, id);
}

int
wake_open(int sbfd, const char *id)
{
	char name[64];
	struct stat st;
	int fd;

	if (wake_name(name, sizeof(name), id) < 0)
		return -1;
	/* Folders made before the channel existed get its directory here. */
	if (mkdirat(sbfd, SBX_WAKE_DIR, 0700) < 0 && errno != EEXIST)
		return -1;
	if (mkfifoat(sbfd, name, 0600) < 0 && errno != EEXIST)
		return -1;
	/* O_RDWR: the FIFO always has a writer (us), so it never reports a
	 * hang-up, and sbxd's non-blocking open for writing finds a reader. */
	fd = openat(sbfd, name, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}

void
wake_remove(int sbfd, const char *id)
{
	char name[64];

	if (wake_name(name, sizeof(name), id) >= 0)
		(void)unlinkat_nf(sbfd, name, 0);
}

int
wake_wait(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	if (timeout_ms < 0)
		timeout_ms = 0;
	if (fd < 0)
		return poll(NULL, 0, timeout_ms) < 0 && errno != EINTR ? -1 : 0;
	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	return r > 0 && (p.revents & POLLIN) ? 1 : 0;
}

void
wake_drain(int fd)
{
	char buf[256];

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

void
wake_poke(int sbfd, const char *id)
{
	char name[64], proc[64];
	struct stat st;
	int pfd, fd;

	if (wake_name(name, sizeof(name), id) < 0)
		return;
	pfd = openat_nf(sbfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
	/* One wake per request: whoever waits holds the FIFO open already,
	 * so the name goes first (before the woken hook can answer). */
	wake_remove(sbfd, id);
	if (pfd < 0)
		return;
	/* The inode checked is the inode opened: reopened through the O_PATH
	 * fd, never by name again. A regular file, a socket or anything the
	 * agent put there instead is left alone. */
	if (fstat(pfd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_uid == geteuid() &&
	    xsnprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd) >= 0) {
		fd = open(proc, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			(void)!write(fd, "w", 1);
			close(fd);
		}
	}
	close(pfd);
}
