/*
 * floor - the least an escalation round trip can cost on this machine,
 * measured with the same mechanisms and no sbx logic: two renames, an
 * inotify wake of the server, one `/bin/sh -c true`, and five fsyncs (the
 * request file; then, in the server: a record, the two output files and
 * the result file); the client polls for its result (see call()).
 *
 *   floor serve DIR      the server (runs until killed)
 *   floor call DIR       one round trip (run it under tests/bench/spawn)
 *
 * DIR gets tmp/, new/, res/. The client removes its result, so the
 * directories stay small: this is the floor for an empty history.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int
serve(const char *dir)
{
	char buf[4096] __attribute__((aligned(8))), from[PATH_MAX], to[PATH_MAX];
	struct inotify_event *ev;
	ssize_t n;
	char *p;
	int fd, st;
	pid_t pid;

	snprintf(from, sizeof(from), "%s/new", dir);
	if ((fd = inotify_init1(IN_CLOEXEC)) < 0 || inotify_add_watch(fd, from, IN_MOVED_TO) < 0)
		return 1;
	for (;;) {
		if ((n = read(fd, buf, sizeof(buf))) <= 0)
			return errno == EINTR ? 0 : 1;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (struct inotify_event *)p;
			if (!ev->len)
				continue;
			snprintf(from, sizeof(from), "%s/new/%s", dir, ev->name);
			snprintf(to, sizeof(to), "%s/tmp/%s.rec", dir, ev->name);
			if (put(to, "record\n") < 0)
				return 1;
			unlink(to);
			unlink(from);
			if ((pid = fork()) == 0) {
				execl("/bin/sh", "sh", "-c", "true", (char *)NULL);
				_exit(127);
			}
			waitpid(pid, &st, 0);
			snprintf(to, sizeof(to), "%s/tmp/%s.out", dir, ev->name);
			put(to, "");
			unlink(to);
			snprintf(to, sizeof(to), "%s/tmp/%s.err", dir, ev->name);
			put(to, "");
			unlink(to);
			snprintf(from, sizeof(from), "%s/tmp/%s.res", dir, ev->name);
			snprintf(to, sizeof(to), "%s/res/%s", dir, ev->name);
			if (put(from, "{\"status\":\"done\"}\n") < 0 || rename(from, to) < 0)
				return 1;
		}
	}
}

/* The client waits by polling for its result every 50 us: an inotify fd
 * of its own would add the kernel's grace period at close (exit) to
 * every call, which is part of what the benchmark is meant to expose. */
static int
call(const char *dir)
{
	char name[32], tmp[PATH_MAX], dst[PATH_MAX];
	struct timespec nap = { 0, 50000 };
	struct stat st;
	long i;

	snprintf(name, sizeof(name), "%ld", (long)getpid());
	snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, name);
	snprintf(dst, sizeof(dst), "%s/new/%s", dir, name);
	if (put(tmp, "{\"command\":\"true\"}\n") < 0 || rename(tmp, dst) < 0)
		return 1;
	snprintf(dst, sizeof(dst), "%s/res/%s", dir, name);
	for (i = 0; i < 200000; i++) {
		if (stat(dst, &st) == 0) {
			unlink(dst);
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	return 1;
}

int
main(int argc, char **argv)
{
	char d[PATH_MAX];
	const char *sub[] = { "tmp", "new", "res" };
	int i;

	if (argc != 3 || (strcmp(argv[1], "serve") && strcmp(argv[1], "call"))) {
		fprintf(stderr, "usage: floor serve|call DIR\n");
		return 2;
	}
	if (!strcmp(argv[1], "call"))
		return call(argv[2]);
	for (i = 0; i < 3; i++) {
		snprintf(d, sizeof(d), "%s/%s", argv[2], sub[i]);
		if (mkdir(d, 0700) < 0 && errno != EEXIST)
			return 1;
	}
	return serve(argv[2]);
}
