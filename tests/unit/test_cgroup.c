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
	for (n = 0; n < 200 && cgroup_only(dir, pid) != 1; n++)
		usleep(10000);
	is_int(cgroup_only(dir, pid), 1, "the child is alone in it");
	is_int(cgroup_only(dir, getpid()), 0, "and it is not this process");
	is_int(cgroup_set_max(dir, 0), 0, "pids.max set to no limit");
	is_int(cgroup_set_max(dir, 40), 0, "and to 40");
	close(p[1]);
	is_int(child_status(pid), 0, "the child saw itself in %s", rel);
	cgroup_drop(dir);
	ok(access(dir, F_OK) < 0, "dropped");
}

int
main(void)
{
	test_detection();
	test_clone_into();
	test_v1();
	return tap_done();
}
