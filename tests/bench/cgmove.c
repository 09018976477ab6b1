/*
 * cgmove - what starting a child in a pids cgroup costs (issue 16 item 1),
 * the way sbxd's executor does it (daemon/cgroup.c), from fork to the
 * child's exit, 200 ms apart (as round trips are: the kernel's grace
 * period machinery is idle again by then):
 *   fork, no cgroup          the reference
 *   fork + move (v1/v2)      the child writes cgroup.procs: waits for an
 *                            RCU grace period (sbxd's spare pays it ahead)
 *   clone3 into (v2)         CLONE_INTO_CGROUP: started inside, no move
 *
 *   cgmove N
 *
 * Needs a writable pids hierarchy (root); a way the machine lacks is
 * said, not measured. Prints median, minimum and maximum in ms.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/cgroup.h"

static double
now_ms_f(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* N starts of a child in dir ("" none; v2: clone3 unless move). */
static void
measure(const char *label, const char *dir, int move, int n)
{
	double *v = calloc((size_t)n, sizeof(*v)), t0;
	int i, joined, st, bad = 0;
	pid_t pid;

	for (i = 0; v && i < n; i++) {
		usleep(200000);
		t0 = now_ms_f();
		pid = move ? fork() : cgroup_fork(dir, &joined);
		if (pid == 0)
			_exit(*dir && (move || !joined) && cgroup_join(dir) < 0);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		v[i] = now_ms_f() - t0;
	}
	if (v && !bad) {
		qsort(v, (size_t)n, sizeof(*v), cmp);
		printf("%-34s %8.3f %8.3f %8.3f\n", label, v[n / 2], v[0], v[n - 1]);
	} else {
		printf("%-34s failed\n", label);
	}
	free(v);
}

int
main(int argc, char **argv)
{
	static const char *const v2s[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified", NULL };
	char dir[PATH_MAX], name[64];
	int n = argc > 1 ? atoi(argv[1]) : 20, i;

	if (n < 1 || n > 10000) {
		fprintf(stderr, "usage: cgmove N\n");
		return 2;
	}
	printf("%-34s %8s %8s %8s\n", "child start (ms), 200 ms apart", "median", "min", "max");
	measure("fork, no cgroup", "", 0, n);
	snprintf(name, sizeof(name), "bench-%ld", (long)getpid());
	if (cgroup_make(name, 1000, dir, sizeof(dir)) == 0) {
		measure(cgroup_is_v2(dir) == 1 ? "fork + move (pids, cgroup v2)" :
		    "fork + move (pids, cgroup v1)", dir, 1, n);
		cgroup_drop(dir);
	} else {
		printf("%-34s (no writable pids hierarchy here)\n", "fork + move");
	}
	for (i = 0; v2s[i]; i++) {
		if (cgroup_is_v2(v2s[i]) != 1 ||
		    snprintf(dir, sizeof(dir), "%s/sbx-%s", v2s[i], name) >= (int)sizeof(dir) ||
		    mkdir(dir, 0755) < 0)
			continue;
		measure("fork + move (cgroup v2)", dir, 1, n);
		measure("clone3 into (cgroup v2)", dir, 0, n);
		rmdir(dir);
		return 0;
	}
	printf("%-34s (no writable cgroup v2 here)\n", "clone3 into (cgroup v2)");
	return 0;
}
