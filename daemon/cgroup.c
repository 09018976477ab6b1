/*
 * cgroup.c - the pids cgroup of one run; see cgroup.h.
 *
 * MUST NOT leave a process it started outside the run's cgroup when it
 * made one: a child that cannot join it does not run the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "common/base/util.h"
#include "daemon/cgroup.h"

static const char *const bases[] = { "/sys/fs/cgroup/pids", "/sys/fs/cgroup",
	"/sys/fs/cgroup/unified", NULL };

/* A pids hierarchy: v1 root has no pids.max; accept one with a writable
 * cgroup.procs whose children get pids.max. */
static int
base_writable(const char *base)
{
	char path[PATH_MAX];

	return xsnprintf(path, sizeof(path), "%s/cgroup.procs", base) >= 0 &&
	    access(path, W_OK) == 0;
}

int
cgroup_available(void)
{
	int i;

	for (i = 0; bases[i]; i++)
		if (base_writable(bases[i]))
			return 1;
	return 0;
}

/* Writes text into dir/file. 0 or -1. */
static int
write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text);
	int fd, rc = -1;

	if (xsnprintf(path, sizeof(path), "%s/%s", dir, file) < 0 ||
	    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (write(fd, text, len) == (ssize_t)len)
		rc = 0;
	close(fd);
	return rc;
}

int
cgroup_set_max(const char *dir, int max)
{
	char num[32];

	if (max > 0)
		snprintf(num, sizeof(num), "%d", max);
	else
		snprintf(num, sizeof(num), "max");
	return write_file(dir, "pids.max", num);
}

int
cgroup_name(const char *name, char *dir, size_t dirsz)
{
	int i;

	for (i = 0; bases[i]; i++)
		if (base_writable(bases[i]))
			return xsnprintf(dir, dirsz, "%s/sbx-%s", bases[i], name) < 0 ? -1 : 0;
	return -1;
}

int
cgroup_create(const char *dir, int max)
{
	int e;

	/* A fresh one, or none: a directory already there (left by an sbxd
	 * that is gone, or put there) may hold other processes, and is
	 * never removed here. */
	if (mkdir(dir, 0755) < 0)
		return -1;
	if (cgroup_set_max(dir, max) < 0) {
		e = errno;
		rmdir(dir);
		errno = e;
		return -1;
	}
	return 0;
}

int
cgroup_make(const char *name, int max, char *dir, size_t dirsz)
{
	int i;

	for (i = 0; bases[i]; i++)
		if (base_writable(bases[i]) &&
		    xsnprintf(dir, dirsz, "%s/sbx-%s", bases[i], name) >= 0 &&
		    cgroup_create(dir, max) == 0)
			return 0;
	if (dirsz)
		dir[0] = '\0';
	return -1;
}

int
cgroup_join(const char *dir)
{
	return write_file(dir, "cgroup.procs", "0");
}

/* Reads dir/cgroup.procs into buf (NUL-terminated). Bytes read, or -1. */
static ssize_t
read_procs(const char *dir, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (xsnprintf(path, sizeof(path), "%s/cgroup.procs", dir) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Kills (SIGKILL) every process in dir but keep (0: none) and counts
 * them in *others. The list is read in pieces, whole lines only: a
 * long one is killed whole, and never a pid cut in two. 0 or -1. */
static int
kill_listed(const char *dir, pid_t keep, int *others)
{
	char path[PATH_MAX], buf[4096], *p, *nl;
	size_t have = 0;
	ssize_t n;
	long pid;
	int fd;

	*others = 0;
	if (xsnprintf(path, sizeof(path), "%s/cgroup.procs", dir) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = '\0';
		for (p = buf; (nl = strchr(p, '\n')); p = nl + 1)
			if ((pid = atol(p)) > 0 && pid != keep) {
				kill((pid_t)pid, SIGKILL);
				(*others)++;
			}
		have = strlen(p);
		memmove(buf, p, have);
	}
	close(fd);
	return n < 0 ? -1 : 0;
}

int
cgroup_holds(const char *dir, const pid_t *pids, int n)
{
	char buf[256], *p, *end;
	unsigned seen = 0;
	ssize_t got;
	long pid;
	int i;

	if ((got = read_procs(dir, buf, sizeof(buf))) < 0)
		return -1;
	if ((size_t)got >= sizeof(buf) - 1)
		return 0;               /* cut short: more than we hold */
	for (p = buf; *p; p = end + 1) {
		pid = strtol(p, &end, 10);
		if (end == p || *end != '\n')
			return 0;
		for (i = 0; i < n && i < 32 && (pids[i] != pid || (seen >> i & 1)); i++)
			;
		if (i >= n || i >= 32)
			return 0;
		seen |= 1u << i;
	}
	return n <= 32 && seen == (n == 32 ? ~0u : (1u << n) - 1);
}

void
cgroup_kill(const char *dir)
{
	int others;

	if (*dir)
		(void)kill_listed(dir, 0, &others);
}

long
cgroup_current(const char *dir)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (xsnprintf(path, sizeof(path), "%s/pids.current", dir) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atol(buf);
}

int
cgroup_leave(const char *dir)
{
	char parent[PATH_MAX], *slash;

	if (xsnprintf(parent, sizeof(parent), "%s", dir) < 0 ||
	    !(slash = strrchr(parent, '/')) || slash == parent)
		return -1;
	*slash = '\0';
	return write_file(parent, "cgroup.procs", "0");
}

int
cgroup_clear(const char *dir, pid_t keep)
{
	int others;

	return kill_listed(dir, keep, &others) < 0 ? -1 : others;
}

void
cgroup_drop(const char *dir)
{
	int tries;

	if (!*dir)
		return;
	/* Only EBUSY (processes still in it, being killed) is worth waiting
	 * for; anything else will not change: what is left is swept at the
	 * next start (cgroup_sweep). */
	for (tries = 0; tries < 100; tries++) {
		if (rmdir(dir) == 0 || errno != EBUSY)
			return;
		if (!tries)
			(void)cgroup_set_max(dir, 1);   /* what is left forks no more */
		cgroup_kill(dir);
		usleep(10000);
	}
}

/* The pid in NAME ("sbx-spare-PID-N", "sbx-run-PID-ID"), or 0. */
static long
owner_of(const char *name)
{
	const char *p = NULL;
	char *end;
	long pid;

	if (!strncmp(name, "sbx-spare-", 10))
		p = name + 10;
	else if (!strncmp(name, "sbx-run-", 8))
		p = name + 8;
	if (!p)
		return 0;
	pid = strtol(p, &end, 10);
	return pid > 0 && *end == '-' ? pid : 0;
}

int
cgroup_sweep(int min_age, int *kept)
{
	char dir[PATH_MAX], procs[64];
	struct dirent *de;
	struct stat st;
	long pid;
	int i, n = 0;
	DIR *d;

	*kept = 0;
	for (i = 0; bases[i]; i++) {
		if (!base_writable(bases[i]) || !(d = opendir(bases[i])))
			continue;
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "sbx-", 4) ||
			    xsnprintf(dir, sizeof(dir), "%s/%s", bases[i], de->d_name) < 0 ||
			    lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
				continue;
			/* Never one of a live sbxd (its pid in the name, alive:
			 * kill(0) succeeds, or EPERM for another user's), one
			 * made moments ago (being set up: the name may carry no
			 * pid), or one with processes (rmdir would refuse too). */
			pid = owner_of(de->d_name);
			if ((pid && (kill((pid_t)pid, 0) == 0 || errno == EPERM)) ||
			    time(NULL) - st.st_mtime < min_age ||
			    read_procs(dir, procs, sizeof(procs)) != 0) {
				(*kept)++;
				continue;
			}
			if (rmdir(dir) == 0)
				n++;
			else
				(*kept)++;
		}
		closedir(d);
	}
	return n;
}

int
cgroup_is_v2(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return -1;
	return sf.f_type == CGROUP2_SUPER_MAGIC;
}

pid_t
cgroup_fork(const char *dir, int *joined)
{
	struct clone_args ca;
	long pid;
	int fd, saved;

	*joined = 0;
	if (!*dir || cgroup_is_v2(dir) != 1 ||
	    (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return fork();
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)fd;
	/* Like fork(), without glibc's atfork handlers: sbxd and its
	 * executors are single-threaded, and the child only prepares and
	 * execs the command. */
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	saved = errno;
	close(fd);
	if (pid < 0 && (saved == ENOSYS || saved == E2BIG || saved == EINVAL))
		return fork();          /* an older kernel: the child joins */
	errno = saved;
	if (pid >= 0)
		*joined = 1;
	return (pid_t)pid;
}
