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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "common/protocol/wake.h"

/* The name of pool slot K: a dot name, so a pooled FIFO is nothing
 * waiting for sbxd (daemon/folder.c's box_busy skips dot names). */
static void
wake_slot(char buf[16], int k)
{
	memcpy(buf, ".free.", 6);
	buf[6] = (char)('0' + k / 10 % 10);
	buf[7] = (char)('0' + k % 10);
	buf[8] = '\0';
}

/* Whether NAME is one of the SBX_WAKE_POOL slot names. */
static int
wake_is_slot(const char *name)
{
	return strncmp(name, ".free.", 6) == 0 && name[6] >= '0' && name[6] <= '9' &&
	    name[7] >= '0' && name[7] <= '9' && name[8] == '\0' &&
	    (name[6] - '0') * 10 + (name[7] - '0') < SBX_WAKE_POOL;
}

/* The mode of a wake FIFO: 0600, or 0602 in a handed-over folder, where
 * sbxd's user is "others" to our FIFO (.sandbox/ lets nobody else in):
 * it may write, not read. */
static mode_t
wake_mode(int sbfd)
{
	return sandbox_fifo_mode(sbfd);
}

/*
 * Takes NAME (in DFD) out of the way when it is not a FIFO that may stay:
 * unlinked; a directory (the agent's, planted) removed when empty, else,
 * with ASIDE (NAME is a slot or a request's), moved aside to .moved.INO,
 * a name that is neither (DFD's owner, or the entry's, may rename it in
 * a sticky directory; whoever may not leaves it, and the hooks skip that
 * slot). 0 when NAME is free now, -1 otherwise.
 */
static int
wake_evict(int dfd, const char *name, int aside_ok)
{
	struct stat st;
	char aside[48];
	int i;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (!aside_ok)
		return -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	for (i = 0; i < 4; i++) {
		if ((i ? xsnprintf(aside, sizeof(aside), ".moved.%llu.%d",
		    (unsigned long long)st.st_ino, i) : xsnprintf(aside, sizeof(aside),
		    ".moved.%llu", (unsigned long long)st.st_ino)) < 0)
			return -1;
		if (renameat2(dfd, name, dfd, aside, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/*
 * Moves NAME (in DFD), the inode ST that the caller verified, into a free
 * pool slot, never over one taken: 0, or -1 (*full set when every slot
 * is taken). Only ST is pooled: NAME is checked to be it before the
 * rename, and the slot after it; what came into the slot instead (NAME
 * swapped in between) was never verified and is evicted from it.
 */
static int
wake_pool_put(int dfd, const char *name, const struct stat *st, int *full)
{
	struct stat nt;
	char slot[16];
	int k;

	*full = 0;
	if (fstatat(dfd, name, &nt, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (nt.st_dev != st->st_dev || nt.st_ino != st->st_ino) {
		errno = ESTALE;
		return -1;
	}
	for (k = 0; k < SBX_WAKE_POOL; k++) {
		wake_slot(slot, k);
		if (renameat2(dfd, name, dfd, slot, RENAME_NOREPLACE) == 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (k == SBX_WAKE_POOL) {
		*full = 1;
		errno = EEXIST;
		return -1;
	}
	if (fstatat(dfd, slot, &nt, AT_SYMLINK_NOFOLLOW) == 0 && nt.st_dev == st->st_dev &&
	    nt.st_ino == st->st_ino)
		return 0;
	(void)wake_evict(dfd, slot, 1);
	errno = ESTALE;
	return -1;
}

/*
 * A shared lock on the FIFO FD for as long as this hook waits on it:
 * wake_close() gives a FIFO back to the pool only under an exclusive
 * one, so never while another hook (an identical call that joined) waits
 * on it. TAKEN (from the pool): the lock must first be had exclusive, so
 * a pooled FIFO some process still holds a lock on (a hook whose FIFO
 * sbxd pooled between its check and its rename, or the agent) is never
 * shared: it is one hook's, then downgraded for hooks that join by the
 * request's name. A hook that gives one back holds its exclusive lock
 * across a rename only: waited for, a little (100 x 50 us); whoever
 * holds one longer gets -1.
 */
static int
wake_lock(int fd, int taken)
{
	struct timespec ts = { 0, 50000 };
	int i;

	for (i = 0; i < 100; i++) {
		if (flock(fd, (taken ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
			return taken ? flock(fd, LOCK_SH | LOCK_NB) : 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/*
 * Opens DFD/ID (queue/wake) for waiting: read-write (the FIFO always has
 * a writer, us, so it never reports a hang-up, and sbxd's non-blocking
 * open for writing finds a reader) and non-blocking, without following a
 * symlink. Only a FIFO of ours of one link (sbxd pokes no other), still
 * at the name once locked (else -1, ENOENT: a hook gave it back to the
 * pool meanwhile; look again). TAKEN: it came from the pool: it must
 * have MODE exactly and its lock (else -1, EPERM), and what is in it is
 * stale (an earlier request's wake, or the agent's bytes) and drained;
 * otherwise (made now, or another waiting hook's) it gets MODE.
 */
static int
wake_join(int dfd, const char *id, mode_t mode, int taken)
{
	struct stat st, nt;
	int fd;

	fd = openat(dfd, id, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1 || (taken && (st.st_mode & 07777) != mode))
		goto bad;
	/* No lock, no channel: a FIFO used without one could be pooled
	 * from under this hook and taken by another. */
	if (wake_lock(fd, taken) < 0)
		goto bad;
	if (fstatat(dfd, id, &nt, AT_SYMLINK_NOFOLLOW) < 0 || nt.st_dev != st.st_dev ||
	    nt.st_ino != st.st_ino) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	if (taken)
		wake_drain(fd);
	else if ((st.st_mode & 07777) != mode)
		(void)fchmod(fd, mode);
	return fd;
bad:
	close(fd);
	errno = EPERM;
	return -1;
}

/*
 * One try of wake_open() in DFD (queue/wake): a FIFO taken from the pool
 * by an exclusive rename of its slot to ID (the first slot that holds
 * one), else made; a name ID already there (another hook waits on the
 * same request) is joined. A pooled FIFO that is not fit (wake_join:
 * planted, linked, held, another mode) loses the name ID again.
 */
static int
wake_get(int dfd, const char *id, mode_t mode)
{
	char slot[16];
	int k, fd;

	for (k = 0; k < SBX_WAKE_POOL; k++) {
		wake_slot(slot, k);
		if (renameat2(dfd, slot, dfd, id, RENAME_NOREPLACE) == 0) {
			if ((fd = wake_join(dfd, id, mode, 1)) >= 0 || errno == ENOENT)
				return fd;
			/* Not fit (a directory planted in the slot too): out of
			 * the way, so that ID can be made below. */
			(void)wake_evict(dfd, id, 1);
			continue;
		}
		/* EEXIST: ID is there, joined below. ENOENT: an empty slot;
		 * EPERM: another user's FIFO in a sticky queue/wake. */
		if (errno == EEXIST)
			break;
	}
	if (mkfifoat(dfd, id, mode) < 0 && errno != EEXIST)
		return -1;
	return wake_join(dfd, id, mode, 0);
}

int
wake_open(int sbfd, const char *id)
{
	const char *base;
	mode_t mode;
	int dfd, fd = -1, e = 0, i;

	if (!valid_id(id)) {
		errno = EINVAL;
		return -1;
	}
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
	 * made or taken through it (sbxd, which pokes without following,
	 * would never reach it). */
	if ((dfd = openat_nf(sbfd, SBX_WAKE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
		return -1;
	mode = wake_mode(sbfd);
	/* ENOENT: the name went between two steps (sbxd's sweep gave it to
	 * the pool, or a hook did): again, a few times. */
	for (i = 0; fd < 0 && i < 3; i++)
		if ((fd = wake_get(dfd, id, mode)) < 0 && (e = errno) != ENOENT)
			break;
	close(dfd);
	if (fd < 0)
		errno = e;
	return fd;
}

void
wake_close(int sbfd, const char *id, int fd)
{
	struct stat st, nt;
	int dfd, full, e = errno;

	if (fd < 0)
		return;
	/* Only the last hook that waits on it (no other holds its lock),
	 * only while ID is still this inode, a FIFO of one link. */
	if (valid_id(id) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    (dfd = openat_nf(sbfd, SBX_WAKE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) >= 0) {
		if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_nlink == 1 &&
		    fstatat(dfd, id, &nt, AT_SYMLINK_NOFOLLOW) == 0 &&
		    nt.st_dev == st.st_dev && nt.st_ino == st.st_ino) {
			/* What is in it stays: the hook that takes it drains
			 * it (and it is what whoever also held it reads). The
			 * pool is full (or has no renameat2): the name
			 * goes, as before the pool. */
			if (wake_pool_put(dfd, id, &st, &full) < 0 && errno != ENOENT &&
			    errno != ESTALE)
				(void)unlinkat(dfd, id, 0);
		}
		close(dfd);
	}
	close(fd);
	errno = e;
}

int
wake_renew(int sbfd, const char *id, int fd)
{
	struct stat st, nt;
	char path[64];
	int e = errno;

	if (fd >= 0 && valid_id(id) &&
	    xsnprintf(path, sizeof(path), "%s/%s", SBX_WAKE_DIR, id) > 0 &&
	    fstat(fd, &st) == 0 && fstatat_nf(sbfd, path, &nt) == 0 &&
	    nt.st_dev == st.st_dev && nt.st_ino == st.st_ino) {
		errno = e;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	fd = wake_open(sbfd, id);
	errno = e;
	return fd;
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
	int i;

	if (fd < 0)
		return;
	/* Bounded: a writer that never stops (the agent) only makes the
	 * hook look again. 256 x 256 bytes is a default pipe's capacity. */
	for (i = 0; i < 256 && read(fd, buf, sizeof(buf)) > 0; i++)
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
	int dfd, pfd, fd = -1, writable, full;

	if (!valid_id(id) || (dfd = wake_dir(sbfd, &dir_uid)) < 0)
		return;
	pfd = openat(dfd, id, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	/* Checked while it has its name (its links counted). The name
	 * stays: the woken hook gives the FIFO back to the pool once it is
	 * done with it (wake_close), so no inode is freed per request (on
	 * ext4 without a journal every free inode deleted in the last
	 * minutes slows each later create near it: docs/QUEUE.md, Wake). */
	writable = pfd >= 0 && fstat(pfd, &st) == 0 && wake_writable(&st, dir_uid);
	/* The inode checked is the inode opened: reopened through the O_PATH
	 * fd, never by name again. A regular file, a socket, a FIFO of a
	 * third user or anything else put at the name is left alone. */
	if (writable && (fd = wake_reopen(pfd)) >= 0) {
		(void)!write(fd, "w", 1);
		close(fd);
	} else if (writable && errno == ENXIO) {
		/* Nobody waits on it (its hook answered "pending" or was
		 * killed): into the pool now, as the sweep would (a hook that
		 * has just taken it, not yet opened, finds the name gone and
		 * takes one again). */
		(void)wake_pool_put(dfd, id, &st, &full);
	}
	close(dfd);
	if (pfd >= 0)
		close(pfd);
}

/* Whether DFD/NAME is a FIFO sbxd may poke (wake_writable): 1, 0, or -1
 * when there is no such name; and whether a process holds it open for
 * reading (*live). Opening it for writing
 * without blocking and closing it wakes nobody (no byte, and a waiting
 * hook holds it read-write, so no hang-up either). */
static int
wake_fit(int dfd, const char *name, uid_t dir_uid, int *live, struct stat *st)
{
	int pfd, fd, fit = 0;

	*live = 0;
	if ((pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(pfd, st) == 0 && wake_writable(st, dir_uid)) {
		fit = 1;
		if ((fd = wake_reopen(pfd)) >= 0) {
			close(fd);
			*live = 1;
		}
	}
	close(pfd);
	return fit;
}

int
wake_sweep(int sbfd, int max, int *more)
{
	char slot[16];
	struct dirent *de;
	struct stat st;
	uid_t dir_uid;
	int dfd, k, n = 0, seen = 0, live, full = 0, fit, id;
	DIR *d;

	*more = 0;
	if ((dfd = wake_dir(sbfd, &dir_uid)) < 0)
		return errno == ENOENT ? 0 : -1;
	/* The slots first: a pooled FIFO stays, held open or not (the hook
	 * that takes it checks it again and drains it); a slot holding
	 * anything else (a FIFO of another user than the hooks', a
	 * directory the agent planted) is emptied, a directory that is not
	 * empty moved aside, so the leftovers below can fill it. */
	for (k = 0; k < SBX_WAKE_POOL; k++) {
		wake_slot(slot, k);
		fit = wake_fit(dfd, slot, dir_uid, &live, &st);
		if (fit == 0 || (fit == 1 && st.st_uid != dir_uid))
			(void)wake_evict(dfd, slot, 1);
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    wake_is_slot(de->d_name))
			continue;
		if (seen++ >= max) {
			*more = 1;
			break;
		}
		/* A FIFO some process holds open for reading is a hook that
		 * waits: it stays. One nobody waits on (a hook killed before
		 * it gave it back, one left by a hook that answered
		 * "pending": the next identical call takes one again) goes to
		 * the pool while a slot is free, when it is the hooks' user's
		 * (the inode checked is the inode pooled: wake_pool_put); it,
		 * and anything else (junk, a flood of other names), loses its
		 * name; an empty directory too, one that is not empty at a
		 * request's name is moved aside (.moved.INO stay: the agent's
		 * own, not ours to empty). The slots bound the pool. */
		id = valid_id(de->d_name);
		if (id && wake_fit(dfd, de->d_name, dir_uid, &live, &st) == 1 &&
		    st.st_uid == dir_uid) {
			if (live)
				continue;
			if (!full && wake_pool_put(dfd, de->d_name, &st, &full) == 0) {
				n++;
				continue;
			}
		}
		if (wake_evict(dfd, de->d_name, id) == 0)
			n++;
	}
	closedir(d);
	return n;
}
