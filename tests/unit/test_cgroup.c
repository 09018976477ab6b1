/*
 * test_cgroup.c - a run's pids cgroup (daemon/cgroup.c) with real
 * cgroups where this machine lets us make them: which filesystem is
 * cgroup v2 (where clone3 starts a child inside a cgroup, not moved
 * there), that such a child is in it from its first instruction, and a
 * v1 cgroup's make / join / only / drop. What the machine lacks is
 * skipped and said.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "daemon/cgroup.c"
#include "tests/tap.h"

/* The first mount point of filesystem type fstype (mountinfo), or "". */
static void
mount_of(const char *fstype, char *out, size_t size)
{
	char line[4096], mnt[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *sep;

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNT OPTS... - TYPE SOURCE SUPER */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    !(sep = strstr(line, " - ")) || sscanf(sep + 3, "%63s", type) != 1)
			continue;
		if (strcmp(type, fstype) == 0) {
			snprintf(out, size, "%s", mnt);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* In a child: 0 when /proc/self/cgroup names rel (v2 "0::REL" or a v1
 * line ending ":REL"), else 1. */
static int
in_cgroup(const char *rel)
{
	char line[PATH_MAX + 64], *p;
	FILE *f = fopen("/proc/self/cgroup", "r");
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if ((p = strrchr(line, ':')) && strcmp(p + 1, rel) == 0)
			found = 1;
	}
	if (f)
		fclose(f);
	return found ? 0 : 1;
}

static int
child_status(pid_t pid)
{
	int st = -1;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
test_detection(void)
{
	char dir[] = "/tmp/sbx-cgroup-test.XXXXXX", v2[PATH_MAX], v1[PATH_MAX];

	ok(mkdtemp(dir) != NULL, "a temporary directory");
	is_int(cgroup_is_v2(dir), 0, "a temporary directory is not cgroup v2");
	rmdir(dir);
	is_int(cgroup_is_v2("/nonexistent/sbx"), -1, "a missing path is an error");
	mount_of("cgroup2", v2, sizeof(v2));
	if (*v2)
		is_int(cgroup_is_v2(v2), 1, "cgroup2 mounted at %s is cgroup v2", v2);
	else
		ok(1, "# SKIP no cgroup2 mounted here");
	mount_of("cgroup", v1, sizeof(v1));
	if (*v1)
		is_int(cgroup_is_v2(v1), 0, "cgroup v1 mounted at %s is not v2", v1);
	else
		ok(1, "# SKIP no cgroup v1 mounted here");
}

/* clone3(CLONE_INTO_CGROUP): the child starts in the cgroup. */
static void
test_clone_into(void)
{
	char v2[PATH_MAX], dir[PATH_MAX], rel[128];
	int joined = -1;
	pid_t pid;

	mount_of("cgroup2", v2, sizeof(v2));
	snprintf(rel, sizeof(rel), "/sbx-unit-%ld", (long)getpid());
	if (!*v2 || xsnprintf(dir, sizeof(dir), "%s%s", v2, rel) < 0 || mkdir(dir, 0755) < 0) {
		ok(1, "# SKIP no cgroup v2 directory can be made here");
		return;
	}
	pid = cgroup_fork(dir, &joined);
	if (pid == 0)
		_exit(in_cgroup(rel));
	ok(pid > 0, "cgroup_fork into a v2 cgroup");
	is_int(joined, 1, "by clone3(CLONE_INTO_CGROUP): the child need not move");
	is_int(child_status(pid), 0, "the child is in %s from its start", rel);
	ok(rmdir(dir) == 0, "the cgroup is empty again and removed");
}

/* A v1 pids cgroup: made with its limit, joined by a child, which is
 * alone in it, dropped with what is left. */
static void
test_v1(void)
{
	char dir[PATH_MAX] = "", name[64], rel[128];
	int joined = -1, p[2], n;
	pid_t pid;

	snprintf(name, sizeof(name), "unit-%ld", (long)getpid());
	if (!base_writable("/sys/fs/cgroup/pids") || cgroup_make(name, 7, dir, sizeof(dir)) < 0 ||
	    cgroup_is_v2(dir) != 0) {
		if (*dir)
			cgroup_drop(dir);
		ok(1, "# SKIP no writable cgroup v1 pids hierarchy here");
		return;
	}
	snprintf(rel, sizeof(rel), "/sbx-%s", name);
	ok(pipe(p) == 0, "a pipe");
	pid = cgroup_fork(dir, &joined);
	if (pid == 0) {
		char c;

		close(p[1]);
		if (!joined && cgroup_join(dir) < 0)
			_exit(2);
		if (read(p[0], &c, 1) < 0)
			_exit(3);
		_exit(in_cgroup(rel));
	}
	close(p[0]);
	is_int(joined, 0, "cgroup v1: a plain fork, the child moves itself");
	for (n = 0; n < 200 && cgroup_holds(dir, &pid, 1) != 1; n++)
		usleep(10000);
	is_int(cgroup_holds(dir, &pid, 1), 1, "the child is alone in it");
	is_int(cgroup_holds(dir, (pid_t[]){ getpid() }, 1), 0, "and it is not this process");
	is_int(cgroup_set_max(dir, 0), 0, "pids.max set to no limit");
	is_int(cgroup_set_max(dir, 40), 0, "and to 40");
	close(p[1]);
	is_int(child_status(pid), 0, "the child saw itself in %s", rel);
	cgroup_drop(dir);
	ok(access(dir, F_OK) < 0, "dropped");
}

/* Makes BASE/NAME, hours old when old is set. 0 or -1. */
static int
make_aged(const char *base, const char *name, int old, char *dir, size_t size)
{
	struct timespec ts[2] = { { .tv_sec = time(NULL) - 7200 }, { .tv_sec = time(NULL) - 7200 } };

	snprintf(dir, size, "%s/%s", base, name);
	if (mkdir(dir, 0755) < 0)
		return -1;
	return old ? utimensat(AT_FDCWD, dir, ts, 0) : 0;
}

/* cgroup_sweep removes only stale sbx-* cgroups: an sbxd's that is gone,
 * old, empty; never a live owner's, a young one, one with a process.
 * cgroup_create never takes over (or removes) a directory already there. */
static void
test_sweep(void)
{
	char gone[PATH_MAX], live[PATH_MAX], young[PATH_MAX], busy[PATH_MAX], name[96];
	const char *base = NULL;
	int i, kept, p[2];
	pid_t dead, in;
	char c = 0;

	for (i = 0; bases[i]; i++)
		if (base_writable(bases[i]) && cgroup_is_v2(bases[i]) == 0) {
			base = bases[i];
			break;
		}
	if (!base) {
		ok(1, "# SKIP no writable cgroup v1 pids hierarchy here");
		return;
	}
	/* A pid nobody has now: a child that exited. */
	if ((dead = fork()) == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(name, sizeof(name), "sbx-spare-%ld-%ld", (long)dead, (long)getpid());
	ok(make_aged(base, name, 1, gone, sizeof(gone)) == 0, "an old cgroup of a gone sbxd");
	snprintf(name, sizeof(name), "sbx-spare-%ld-%ld", (long)getpid(), (long)getpid());
	ok(make_aged(base, name, 1, live, sizeof(live)) == 0, "an old one of a live process");
	snprintf(name, sizeof(name), "sbx-run-%ld-young%ld", (long)dead, (long)getpid());
	ok(make_aged(base, name, 0, young, sizeof(young)) == 0, "a young one of a gone sbxd");
	snprintf(name, sizeof(name), "sbx-run-%ld-busy%ld", (long)dead, (long)getpid());
	ok(make_aged(base, name, 1, busy, sizeof(busy)) == 0 && pipe(p) == 0,
	    "an old one of a gone sbxd ...");
	if ((in = fork()) == 0) {
		close(p[1]);
		if (cgroup_join(busy) < 0)
			_exit(2);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	for (i = 0; i < 200 && cgroup_holds(busy, &in, 1) != 1; i++)
		usleep(10000);
	is_int(cgroup_holds(busy, &in, 1), 1, "... with a process in it");
	ok(cgroup_sweep(60, &kept) >= 1, "the sweep removes some");
	ok(access(gone, F_OK) < 0, "the old empty cgroup of a gone sbxd is removed");
	ok(access(live, F_OK) == 0, "the one of a live process stays");
	ok(access(young, F_OK) == 0, "a young one stays (it may be being set up)");
	ok(access(busy, F_OK) == 0, "one with a process in it stays");
	ok(kept >= 3, "kept ones are counted (%d)", kept);
	is_int(cgroup_create(live, 5), -1, "cgroup_create on a directory already there fails");
	is_int(errno, EEXIST, "... with EEXIST");
	ok(access(live, F_OK) == 0, "... and leaves it there");
	close(p[1]);
	is_int(child_status(in), 0, "the process in the busy one ends");
	cgroup_drop(busy);
	rmdir(live);
	rmdir(young);
	ok(access(busy, F_OK) < 0 && access(live, F_OK) < 0 && access(young, F_OK) < 0,
	    "(the test's cgroups are removed)");
}

/* A process that stays in a v1 cgroup with 1,200 others (their list is
 * longer than one read): cgroup_holds tells exactly who is in it,
 * cgroup_clear kills every other one (reaped here: they are children of
 * the process that stays) and keeps the caller, cgroup_leave moves it
 * out, and the cgroup can go. */
static void
test_clear(void)
{
	char dir[PATH_MAX] = "", name[64];
	int p[2], q[2];
	pid_t keeper;
	char c = 0;

	snprintf(name, sizeof(name), "unit-clear-%ld", (long)getpid());
	if (!base_writable("/sys/fs/cgroup/pids") || cgroup_make(name, 0, dir, sizeof(dir)) < 0 ||
	    cgroup_is_v2(dir) != 0) {
		if (*dir)
			cgroup_drop(dir);
		ok(1, "# SKIP no writable cgroup v1 pids hierarchy here");
		return;
	}
	ok(pipe(p) == 0 && pipe(q) == 0, "pipes");
	if ((keeper = fork()) == 0) {
		pid_t self = getpid(), kid = 0;
		int i, rc = 0, left = -1;

		close(p[0]);
		close(q[1]);
		if (cgroup_join(dir) < 0)
			_exit(2);
		for (i = 0; i < 1200; i++)
			if ((kid = fork()) == 0) {
				pause();
				_exit(0);
			} else if (kid < 0) {
				_exit(3);
			}
		rc |= cgroup_holds(dir, &self, 1) != 0;             /* more than self */
		rc |= (cgroup_holds(dir, (pid_t[]){ self, kid }, 2) != 0) << 1;
		for (i = 0; i < 5000 && (left = cgroup_clear(dir, self)) > 0; i++) {
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
			usleep(1000);
		}
		rc |= (left != 0) << 2;
		rc |= (cgroup_holds(dir, &self, 1) != 1) << 3;      /* self alone */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		rc |= (cgroup_leave(dir) != 0) << 4;
		rc |= (cgroup_holds(dir, NULL, 0) != 1) << 5;       /* empty */
		if (write(p[1], &c, 1) != 1 || read(q[0], &c, 1) < 0)
			_exit(4);
		_exit(rc);
	}
	close(p[1]);
	close(q[0]);
	ok(read(p[0], &c, 1) == 1, "the keeper and 1,200 children in one cgroup, then cleared");
	ok(access(dir, F_OK) == 0 && rmdir(dir) == 0, "the cgroup, empty, is removed");
	close(q[1]);
	is_int(child_status(keeper), 0, "holds: more than one; clear: all but the keeper; "
	    "holds: the keeper alone; leave: empty (bits of what failed)");
	close(p[0]);
}

int
main(void)
{
	test_detection();
	test_clone_into();
	test_v1();
	test_sweep();
	test_clear();
	return tap_done();
}
