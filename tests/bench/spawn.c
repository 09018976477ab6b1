/*
 * spawn - whole-process timing: runs a command N times, each with stdin
 * from a file and stdout to /dev/null, and prints the per-call median,
 * p99, minimum and maximum wall time in milliseconds.
 *
 *   spawn LABEL N INPUT -- COMMAND [ARGS]...
 *
 * Exits non-zero if any run failed (non-zero exit or signal). With
 * SPAWN_TIMES=FILE in the environment it also writes every time, sorted,
 * one per line, for other percentiles (tests/bench/scale.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct timespec t0, t1;
	double *ms;
	FILE *out;
	int n, i, fd, null, status, failed = 0;
	pid_t pid;

	if (argc < 6 || strcmp(argv[4], "--") != 0 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: spawn LABEL N INPUT -- COMMAND [ARGS]...\n");
		return 2;
	}
	if (!(ms = calloc((size_t)n, sizeof(*ms))))
		return 1;
	null = open("/dev/null", O_WRONLY);
	for (i = 0; i < n; i++) {
		if ((fd = open(argv[3], O_RDONLY)) < 0) {
			perror(argv[3]);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			dup2(fd, 0);
			dup2(null, 1);
			execvp(argv[5], argv + 5);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		close(fd);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
		ms[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp);
	if (getenv("SPAWN_TIMES") && (out = fopen(getenv("SPAWN_TIMES"), "w"))) {
		for (i = 0; i < n; i++)
			fprintf(out, "%.3f\n", ms[i]);
		fclose(out);
	}
	printf("%-44s %6d  %8.3f  %8.3f  %8.3f  %8.3f\n", argv[1], n, ms[n / 2],
	    ms[(int)((double)n * 0.99) < n ? (int)((double)n * 0.99) : n - 1], ms[0],
	    ms[n - 1]);
	free(ms);
	return failed ? 1 : 0;
}
