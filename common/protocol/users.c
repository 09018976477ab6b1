/*
 * users.c - the two users of a handed-over folder; see users.h.
 *
 * MUST open the users file with O_NOFOLLOW relative to the .sandbox fd
 * and check that fd: regular, one link, owned by root, no group or
 * other write. MUST parse it exactly (no other lines, no spaces).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/protocol/users.h"

/* "WORD N\n" at *p into *out; advances *p. -1 when it is not that. */
static int
users_line(const char **p, const char *word, unsigned long *out)
{
	size_t n = strlen(word);
	const char *s = *p;
	char *end;

	if (strncmp(s, word, n) != 0 || s[n] != ' ' || s[n + 1] < '0' || s[n + 1] > '9')
		return -1;
	errno = 0;
	*out = strtoul(s + n + 1, &end, 10);
	if (errno || *end != '\n' || *out == 0 || *out >= 0x7fffffffUL)
		return -1;
	*p = end + 1;
	return 0;
}

/*
 * The uid an owner outside our user namespace shows as, when we run in
 * one that maps only some uids (inside `sbx jail`: root and sbxd's user
 * are not mapped there); (uid_t)-1 in the initial namespace, where every
 * owner is seen as it is. Read once.
 */
uid_t
sandbox_unmapped_uid(void)
{
	static int known;
	static uid_t unmapped = (uid_t)-1;
	char map[128], over[32];
	long n;
	int fd;

	if (known)
		return unmapped;
	known = 1;
	if ((fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC)) < 0)
		return unmapped;
	n = read(fd, map, sizeof(map) - 1);
	close(fd);
	map[n > 0 ? n : 0] = '\0';
	/* the initial namespace: "0 0 4294967295" */
	if (n <= 0 || strstr(map, "4294967295"))
		return unmapped;
	if ((fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC)) < 0)
		return unmapped;
	n = read(fd, over, sizeof(over) - 1);
	close(fd);
	over[n > 0 ? n : 0] = '\0';
	if (n > 0)
		unmapped = (uid_t)strtoul(over, NULL, 10);
	return unmapped;
}

int
sandbox_users_read(int sbfd, struct sandbox_users *u, struct sbx_err *err)
{
	char text[SBX_USERS_MAX + 1];
	unsigned long agent, daemon, group;
	const char *p = text;
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(sbfd, SBX_USERS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		err_set(err, ".sandbox/%s cannot be opened: %s", SBX_USERS_FILE,
		    errno == ELOOP ? "it is a symlink" : strerror(errno));
		return -1;
	}
	/* Root's, or, inside a jail's user namespace, an owner not mapped
	 * there (root is not): `sbx jail` checked it outside. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != 0 && st.st_uid != sandbox_unmapped_uid()) || (st.st_mode & 022) ||
	    st.st_size > SBX_USERS_MAX) {
		err_set(err, ".sandbox/%s must be a regular file of root's, of one link, "
		    "not writable by others, at most %d bytes (`sbx handover` writes it)",
		    SBX_USERS_FILE, SBX_USERS_MAX);
		close(fd);
		return -1;
	}
	n = read(fd, text, SBX_USERS_MAX);
	close(fd);
	if (n < 0 || n != st.st_size) {
		err_set(err, ".sandbox/%s cannot be read", SBX_USERS_FILE);
		return -1;
	}
	text[n] = '\0';
	if (strlen(text) != (size_t)n || users_line(&p, "agent", &agent) < 0 ||
	    users_line(&p, "daemon", &daemon) < 0 || users_line(&p, "group", &group) < 0 ||
	    *p || agent == daemon) {
		err_set(err, ".sandbox/%s is malformed (want \"agent UID\", \"daemon UID\" and "
		    "\"group GID\", one a line, two different users other than root)",
		    SBX_USERS_FILE);
		return -1;
	}
	u->agent = (uid_t)agent;
	u->daemon = (uid_t)daemon;
	u->group = (gid_t)group;
	return 1;
}

uid_t
sandbox_peer(int sbfd)
{
	struct sandbox_users u;
	struct sbx_err err;
	struct stat st;
	uid_t me = geteuid();

	/* A .sandbox of ours that lets nobody else in (0700): one user's
	 * folder, nothing more to read. */
	if (fstat(sbfd, &st) < 0 || (st.st_uid == me && !(st.st_mode & 077)) ||
	    sandbox_users_read(sbfd, &u, &err) != 1 || st.st_uid != u.daemon)
		return (uid_t)-1;
	if (me == u.daemon)
		return u.agent;
	if (me == u.agent)
		return u.daemon;
	return (uid_t)-1;
}

mode_t
sandbox_file_mode(int sbfd)
{
	struct sandbox_users u;
	struct sbx_err err;
	struct stat st;
	uid_t me = geteuid();

	/* A .sandbox of ours that lets nobody else in: one user's folder. */
	if (fstat(sbfd, &st) < 0 || (st.st_uid == me && !(st.st_mode & 077)))
		return 0600;
	/* Shared only as root's users file says (deployment 3): its daemon
	 * owns .sandbox (in a jail: the unmapped uid) and we are one of its
	 * two users. Group or other bits on a .sandbox of ours without it
	 * (a chmod in deployment 1) open nothing. */
	if (sandbox_users_read(sbfd, &u, &err) != 1 ||
	    (st.st_uid != u.daemon && st.st_uid != sandbox_unmapped_uid()) ||
	    (me != u.agent && me != u.daemon))
		return 0600;
	return 0644;
}

int
sandbox_fchmod(int sbfd, int fd, int fifo)
{
	mode_t m = sandbox_file_mode(sbfd);

	return fd_mode_exact(fd, m == 0600 ? 0600 : fifo ? 0602 : m);
}
