/*
 * wake.c - the per-request wake channel; see wake.h.
 *
 * MUST never write into anything but a FIFO, never block sbxd, never
 * follow a symlink. A wake carries no meaning beyond "look again".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
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
	const char *base;
	struct stat st;
	int dfd, fd, e;

	if (wake_name(name, sizeof(name), id) < 0)
		return -1;
	/* Folders made before the channel existed get its directory here
	 * (in queue/ opened without following a symlink, as below). */
	if ((dfd = at_parent(sbfd, SBX_WAKE_DIR, &base)) < 0)
		return -1;
	if (mkdirat(dfd, base, 0700) < 0 && errno != EEXIST) {
		e = errno;
		close(dfd);
		errno = e;
		return -1;
	}
	close(dfd);
	/* No symlink on the way: a queue/wake swapped for one gets no FIFO
	 * made through it (sbxd, which pokes without following, would
	 * never reach it). */
	if ((dfd = at_parent(sbfd, name, &base)) < 0)
		return -1;
	if (mkfifoat(dfd, base, 0600) < 0 && errno != EEXIST) {
		e = errno;
		close(dfd);
		errno = e;
		return -1;
	}
	/* O_RDWR: the FIFO always has a writer (us), so it never reports a
	 * hang-up, and sbxd's non-blocking open for writing finds a reader. */
	fd = openat(dfd, base, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	e = errno;
	close(dfd);
	errno = e;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	/* In a handed-over folder sbxd's user is "others" to our FIFO
	 * (.sandbox/ lets nobody else in): it may write, not read. */
	if (sandbox_file_mode(sbfd) != 0600 && (st.st_mode & 07777) != 0602)
		(void)fchmod(fd, 0602);
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

/*
 * Whether sbxd may write into the inode ST (opened O_PATH, never by name
 * again): a FIFO of one link (not a hard link to one elsewhere), owned
 * by sbxd's own user or by the owner of queue/wake, DIR_UID: the agent's
 * user, whose hooks make the FIFOs, when sbxd runs as another user
 * (deployment 3). A byte written into a FIFO of that user harms nobody
 * else: the user could write it itself.
 */
static int
wake_writable(const struct stat *st, uid_t dir_uid)
{
	return S_ISFIFO(st->st_mode) && st->st_nlink == 1 &&
	    (st->st_uid == geteuid() || st->st_uid == dir_uid);
}

/* Opens the inode behind PFD (O_PATH) for writing, without blocking:
 * the fd, or -1 (ENXIO: nobody holds it open for reading). */
static int
wake_reopen(int pfd)
{
	char proc[64];

	if (xsnprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd) < 0)
		return -1;
	return open(proc, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

/* queue/wake, opened without following a symlink, and the user whose
 * FIFOs may be poked besides ours: its owner, or, when it is ours and
 * writable by the agent's group (a handed-over folder: sbx handover),
 * the agent's user that the root-owned .sandbox/users names. */
static int
wake_dir(int sbfd, uid_t *uid)
{
	struct stat st;
	int dfd = openat_nf(sbfd, SBX_WAKE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (dfd >= 0 && fstat(dfd, &st) < 0) {
		close(dfd);
		return -1;
	}
	if (dfd >= 0)
		*uid = st.st_uid == geteuid() && (st.st_mode & S_IWGRP) ? sandbox_peer(sbfd) :
		    st.st_uid;
	return dfd;
}

void
wake_poke(int sbfd, const char *id)
{
	struct stat st;
	uid_t dir_uid;
	int dfd, pfd, fd, writable;

	if (!valid_id(id) || (dfd = wake_dir(sbfd, &dir_uid)) < 0)
		return;
	pfd = openat(dfd, id, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	/* Checked while it has its name (its links counted), then: one wake
	 * per request: whoever waits holds the FIFO open already, so the
	 * name goes first (before the woken hook can answer). */
	writable = pfd >= 0 && fstat(pfd, &st) == 0 && wake_writable(&st, dir_uid);
	(void)unlinkat(dfd, id, 0);
	close(dfd);
	/* The inode checked is the inode opened: reopened through the O_PATH
	 * fd, never by name again. A regular file, a socket, a FIFO of a
	 * third user or anything else put at the name is left alone. */
	if (writable && (fd = wake_reopen(pfd)) >= 0) {
		(void)!write(fd, "w", 1);
		close(fd);
	}
	if (pfd >= 0)
		close(pfd);
}

int
wake_sweep(int sbfd, int max, int *more)
{
	struct dirent *de;
	struct stat st;
	uid_t dir_uid;
	int dfd, pfd, fd, n = 0, seen = 0, live;
	DIR *d;

	*more = 0;
	if ((dfd = wake_dir(sbfd, &dir_uid)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (seen++ >= max) {
			*more = 1;
			break;
		}
		/* A FIFO some process holds open for reading is a hook that
		 * waits: it stays. Opening it for writing without blocking
		 * and closing it wakes nobody (no byte, and the hook holds it
		 * read-write, so no hang-up either). */
		live = 0;
		pfd = openat(dfd, de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd >= 0 && fstat(pfd, &st) == 0 && valid_id(de->d_name) &&
		    wake_writable(&st, dir_uid) && (fd = wake_reopen(pfd)) >= 0) {
			close(fd);
			live = 1;
		}
		if (pfd >= 0)
			close(pfd);
		/* Anything else (a hook killed before it removed its FIFO, a
		 * FIFO left for the next identical call, which makes it again,
		 * junk put there) loses its name; a directory stays. */
		if (!live && unlinkat(dfd, de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}
