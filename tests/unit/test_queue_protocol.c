/*
 * test_queue_protocol.c - the queue protocol's one owner (common/protocol/queue.c):
 * queue_path() for every kind, sh_quote() through the real /bin/sh, and
 * the write intent's render/parse pair: what sbx-mcp queues, /bin/sh
 * writes, and `sbx watch` parses back, for hostile paths and contents.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "common/protocol/wake.h"
#include "tests/tap.h"

static const char *const tricky[] = {
	"plain", "", "it's", "'", "''''", "a b\tc\nd", "$(id) `id` $HOME ${X:-y}",
	"\\'\\\\'", "; rm -rf / #", "\"double\" 'single' \\back", "-n", "%s%n",
	"ünïcödé ✓", "' > /tmp/x; '", "printf '%s' 'a' > 'b'", "\n\n", "a'b'c'd",
	NULL,
};

/* Runs cmd with /bin/sh -c in dir; its stdout (at most n - 1 bytes) in
 * out. The exit status, or -1. */
static int
sh_run(const char *dir, const char *cmd, char *out, size_t n, size_t *len)
{
	int p[2], st;
	ssize_t r;
	pid_t pid;

	*len = 0;
	if (pipe(p) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		if (chdir(dir) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], out + *len, n - 1 - *len)) > 0)
		*len += (size_t)r;
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_paths(void)
{
	static const struct { enum queue_kind k; const char *want; } want[] = {
		{ QP_NEW, "queue/new/0123456789abcdef.json" },
		{ QP_PENDING, "pending/0123456789abcdef.json" },
		{ QP_DONE, "done/0123456789abcdef.json" },
		{ QP_RESULT, "results/0123456789abcdef.json" },
		{ QP_STDOUT, "results/0123456789abcdef.stdout" },
		{ QP_STDERR, "results/0123456789abcdef.stderr" },
		{ QP_WORK_STDOUT, "work/0123456789abcdef.stdout" },
		{ QP_WORK_STDERR, "work/0123456789abcdef.stderr" },
		{ QP_DELIVERED, "queue/delivered/0123456789abcdef" },
		{ QP_EVENT, "queue/events/0123456789abcdef.json" },
		{ QP_PROXY_EVENT, "proxy/events/0123456789abcdef.json" },
		{ QP_DECISION, "decisions/new/0123456789abcdef.json" },
	};
	char big[400];
	size_t i;

	is_int(sizeof(want) / sizeof(want[0]), QP_KIND_COUNT, "every kind is checked");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		is_str(queue_path(want[i].k, "0123456789abcdef").s, want[i].want, "%s",
		    want[i].want);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	is_str(queue_path(QP_RESULT, big).s, "", "an id that does not fit gives \"\"");
	is_str(queue_path(QP_KIND_COUNT, "0123456789abcdef").s, "", "no such kind: \"\"");
	is_str(queue_path(QP_RESULT, NULL).s, "", "no id: \"\"");
	/* Every kind's directory is one of the layout's. */
	for (i = 0; i < QP_KIND_COUNT; i++) {
		char dir[64];
		const char *p = queue_path((enum queue_kind)i, "x").s, *slash = strrchr(p, '/');
		int k, found = 0;

		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - p), p);
		for (k = 0; queue_dirs[k]; k++)
			found |= strcmp(queue_dirs[k], dir) == 0;
		ok(found, "%s is a directory of the layout", dir);
	}
}

/* printf %s QUOTED through /bin/sh gives back the bytes. */
static void
test_quote(void)
{
	char out[4096], *q, *cmd;
	size_t len, n;
	int k, bare, bad = 0;

	for (bare = 0; bare < 2; bare++)
		for (k = 0; tricky[k]; k++) {
			q = sh_quote(tricky[k], bare);
			n = strlen(q) + 16;
			cmd = malloc(n);
			snprintf(cmd, n, "printf %%s %s", q);
			if (sh_run(".", cmd, out, sizeof(out), &len) != 0 ||
			    len != strlen(tricky[k]) || memcmp(out, tricky[k], len) != 0) {
				printf("# sh_quote(%d) of tricky %d: %s\n", bare, k, q);
				bad++;
			}
			free(cmd);
			free(q);
		}
	is_int(bad, 0, "sh_quote round-trips every tricky string through /bin/sh");
	q = sh_quote("/usr/bin/sbx-hook", 1);
	is_str(q, "/usr/bin/sbx-hook", "a plain path stays bare");
	free(q);
	q = sh_quote("/opt/my dir/sbx", 1);
	is_str(q, "'/opt/my dir/sbx'", "a path with a space is quoted");
	free(q);
	q = sh_quote("", 1);
	is_str(q, "''", "the empty word is quoted, never dropped");
	free(q);
}

/* render -> /bin/sh writes the file -> parse gives back path and content. */
static void
test_intent(void)
{
	char dir[] = "/tmp/sbx-intent.XXXXXX", path[256], out[4096], *cmd, *p, *c;
	size_t len;
	int k, fd, bad_sh = 0, bad_parse = 0;
	ssize_t r;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	for (k = 0; tricky[k]; k++) {
		snprintf(path, sizeof(path), "%s/f%d %s", dir, k, k % 2 ? "it's" : "$(x)");
		cmd = write_intent_render(path, tricky[k]);
		if (sh_run(dir, cmd, out, sizeof(out), &len) != 0 ||
		    (fd = open(path, O_RDONLY)) < 0) {
			bad_sh++;
		} else {
			r = read(fd, out, sizeof(out));
			close(fd);
			if (r < 0 || (size_t)r != strlen(tricky[k]) || memcmp(out, tricky[k],
			    (size_t)r) != 0)
				bad_sh++;
		}
		if (write_intent_parse(cmd, &p, &c) != 1 || strcmp(p, path) != 0 ||
		    strcmp(c, tricky[k]) != 0) {
			printf("# parse of %s\n", cmd);
			bad_parse++;
		}
		free(p);
		free(c);
		unlink(path);
		free(cmd);
	}
	rmdir(dir);
	is_int(bad_sh, 0, "/bin/sh writes exactly the rendered content to the rendered path");
	is_int(bad_parse, 0, "parse(render(path, content)) gives back path and content");
}

/* What is not exactly a write intent is not one: `sbx watch` shows no
 * diff for a command that does more than write the file. */
static void
test_intent_refused(void)
{
	static const char *const not[] = {
		"printf '%s' 'a' > 'b'; rm -rf ~", "printf '%s' 'a' > 'b' && id",
		"printf '%s' 'a' >> 'b'", "printf '%s' 'a' > b", "printf '%s' a > 'b'",
		"printf '%s' 'a > 'b'", "printf '%s' 'a' > 'b", "printf '%s' 'a'",
		"printf '%s'  'a' > 'b'", "printf %s 'a' > 'b'", "echo 'a' > 'b'",
		" printf '%s' 'a' > 'b'", "printf '%s' 'a' > 'b' ", "printf '%s' 'a' > 'b''c'",
		"", "printf '%s' 'a'\\'' > 'b'", NULL,
	};
	char *p, *c;
	int k, wrong = 0;

	for (k = 0; not[k]; k++)
		if (write_intent_parse(not[k], &p, &c) != 0 || p || c) {
			printf("# taken as a write intent: %s\n", not[k]);
			wrong++;
		}
	ok(write_intent_parse(NULL, &p, &c) == 0 && !p && !c, "NULL is none");
	is_int(wrong, 0, "%d near-misses are not write intents", k);
	ok(write_intent_parse("printf '%s' 'it'\\''s' > '/x'", &p, &c) == 1 &&
	    !strcmp(c, "it's") && !strcmp(p, "/x"), "'\\'' inside a word is a quote");
	free(p);
	free(c);
}

/*
 * Who serves a folder: sbxd_hold() makes sbxd_holder() say so;
 * sbxd_release() (a folder sbxd stopped serving) makes it say nobody at
 * once, with the reason sbxd_stopped() reads back, made printable (the
 * agent can write the file); a second flock still fails meanwhile.
 */
static void
test_holder(void)
{
	char dir[] = "/tmp/sbx-queue-holder.XXXXXX", why[64];
	int sbfd, lockfd, fd2;
	long pid;

	ok(mkdtemp(dir) != NULL, "temp dir");
	sbfd = open(dir, O_RDONLY | O_DIRECTORY);
	lockfd = openat(sbfd, "sbxd.lock", O_RDWR | O_CREAT, 0600);
	is_int(sbxd_holder(sbfd), 0, "a lock file nobody holds: no sbxd");
	ok(flock(lockfd, LOCK_EX | LOCK_NB) == 0 && dprintf(lockfd, "%ld\n", (long)getpid()) > 0 &&
	    sbxd_hold(lockfd) == 0, "sbxd takes the folder");
	is_int(sbxd_holder(sbfd), getpid(), "sbxd_holder names it");
	is_int(sbxd_stopped(sbfd, why, sizeof(why)), 0, "serving: nothing stopped");
	ok(sbxd_release(lockfd, "results is a symlink\033[2J\x7f") == 0, "released");
	is_int(sbxd_holder(sbfd), 0, "released: no sbxd serves it, at once");
	pid = sbxd_stopped(sbfd, why, sizeof(why));
	is_int(pid, getpid(), "the sbxd that stopped serving it is named");
	is_str(why, "results is a symlink?[2J?", "with its reason, printable");
	fd2 = openat(sbfd, "sbxd.lock", O_RDWR);
	ok(flock(fd2, LOCK_EX | LOCK_NB) < 0, "no second sbxd takes the folder meanwhile");
	pid = sbxd_stopped(sbfd, why, 8);
	is_str(why, "results", "a reason cut to the caller's buffer");
	close(lockfd);
	ok(flock(fd2, LOCK_EX | LOCK_NB) == 0, "once that sbxd is gone, a new one can");
	ok(ftruncate(fd2, 0) == 0 && dprintf(fd2, "42\n") > 0, "which rewrites the file");
	is_int(sbxd_stopped(sbfd, why, sizeof(why)), 0, "then nothing says stopped");
	is_str(why, "", "and no reason");
	close(fd2);
	unlinkat(sbfd, "sbxd.lock", 0);
	close(sbfd);
	rmdir(dir);
}

/* Writes DIR/users with TEXT (mode 0644, ours); the fd of DIR. */
static int
users_at(const char *dir, const char *text)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd;

	unlinkat(dfd, "users", 0);
	fd = openat(dfd, "users", O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		(void)!write(fd, text, strlen(text));
		fchmod(fd, 0644);
		close(fd);
	}
	return dfd;
}

/* sandbox_file_mode(DFD) seen by a child with uid and gid ID: its mode,
 * or 1 when the child failed. */
static int
file_mode_as(int dfd, unsigned id)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0)
			_exit(1);
		_exit(sandbox_file_mode(dfd) == 0644 ? 44 : sandbox_file_mode(dfd) == 0600 ? 6 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st) == 44 ? 0644 : WEXITSTATUS(st) == 6 ? 0600 : 1;
}

/* In a child with uid and gid ID and umask 077: a file and a FIFO made
 * in DFD/box, given the folder's mode by sandbox_fchmod, and a file by
 * write_atomic with sandbox_file_mode; 0 when their modes are FILE, FIFO
 * and FILE. */
static int
fchmod_as(int dfd, unsigned id, mode_t file, mode_t fifo)
{
	pid_t pid = fork();
	struct stat a, b, c;
	int st, fd, ff;

	if (pid == 0) {
		if (id && (setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0))
			_exit(1);
		umask(077);
		fd = openat(dfd, "box/f", O_WRONLY | O_CREAT | O_EXCL, 0644);
		ff = mkfifoat(dfd, "box/p", 0600) == 0 ?
		    openat(dfd, "box/p", O_RDWR | O_NONBLOCK) : -1;
		if (fd < 0 || ff < 0 || sandbox_fchmod(dfd, fd, 0) < 0 ||
		    sandbox_fchmod(dfd, ff, 1) < 0 || write_atomic(dfd, "box", "box/w", "x", 1,
		    sandbox_file_mode(dfd), WA_NOSYNC) < 0 ||
		    fstat(fd, &a) < 0 || fstat(ff, &b) < 0 || fstatat(dfd, "box/w", &c, 0) < 0)
			_exit(2);
		unlinkat(dfd, "box/f", 0);
		unlinkat(dfd, "box/p", 0);
		unlinkat(dfd, "box/w", 0);
		_exit((a.st_mode & 07777) == file && (b.st_mode & 07777) == fifo &&
		    (c.st_mode & 07777) == file ? 0 : 3);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

/* The users file of a handed-over folder (deployment 3): read exactly, or
 * refused; its owner must be root, so most cases need root to run. */
static void
test_users(void)
{
	static const struct { const char *text; int want; } cases[] = {
		{ "agent 1001\ndaemon 1002\ngroup 1001\n", 1 },
		{ "agent 1001\ndaemon 1002\ngroup 1001", -1 },          /* no last newline */
		{ "agent 1001\ndaemon 1002\n", -1 },                     /* no group */
		{ "agent 1001\ndaemon 1002\ngroup 1001\nextra 1\n", -1 },
		{ "agent 0\ndaemon 1002\ngroup 1001\n", -1 },           /* root as the agent */
		{ "agent 1001\ndaemon 1001\ngroup 1001\n", -1 },        /* one user */
		{ "agent  1001\ndaemon 1002\ngroup 1001\n", -1 },
		{ "agent 1001 \ndaemon 1002\ngroup 1001\n", -1 },
		{ "agent -1\ndaemon 1002\ngroup 1001\n", -1 },
		{ "agent 99999999999\ndaemon 1002\ngroup 1001\n", -1 },
		{ "daemon 1002\nagent 1001\ngroup 1001\n", -1 },        /* order */
		{ "agent 1001\0\ndaemon 1002\ngroup 1001\n", -1 },
	};
	char dir[] = "/tmp/sbx-users.XXXXXX";
	struct sandbox_users u;
	struct sbx_err err;
	size_t i;
	int dfd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	is_int(sandbox_users_read(dfd, &u, &err), 0, "no users file: a folder of one user");
	ok(sandbox_peer(dfd) == (uid_t)-1, "and nobody else's files are accepted");
	/* Deployment 1 with a .sandbox opened by a chmod: still one user's. */
	ok(fchmod(dfd, 0755) == 0, "(a .sandbox of ours, mode 0755, no users file)");
	is_int(sandbox_file_mode(dfd), 0600, "what we write there for sbxd stays 0600");
	ok(fchmod(dfd, 0700) == 0, "(back to 0700)");
	is_int(sandbox_file_mode(dfd), 0600, "and 0600 in a .sandbox of 0700");
	ok(mkdirat(dfd, "box", 0700) == 0, "(a drop box)");
	is_int(fchmod_as(dfd, 0, 0600, 0600), 0, "a folder of one user: a receipt, a wake "
	    "FIFO and a request stay 0600, whatever the umask");
	close(dfd);
	if (geteuid() != 0) {
		dfd = users_at(dir, cases[0].text);
		is_int(sandbox_users_read(dfd, &u, &err), -1, "a users file not root's is refused");
		close(dfd);
		printf("# the other users-file cases need root (its owner must be root)\n");
	}
	for (i = 0; geteuid() == 0 && i < sizeof(cases) / sizeof(cases[0]); i++) {
		dfd = users_at(dir, cases[i].text);
		is_int(sandbox_users_read(dfd, &u, &err), cases[i].want, "users case %zu", i);
		close(dfd);
	}
	if (geteuid() == 0) {
		char folder[] = "/tmp/sbx-usersf.XXXXXX", sb[64];

		dfd = users_at(dir, cases[0].text);
		is_int(sandbox_users_read(dfd, &u, &err), 1, "a valid users file is read");
		ok(u.agent == 1001 && u.daemon == 1002 && u.group == 1001, "with its three ids");
		ok(fchmodat(dfd, "users", 0664, 0) == 0, "(made group-writable)");
		is_int(sandbox_users_read(dfd, &u, &err), -1, "one writable by its group is refused");
		ok(fchmodat(dfd, "users", 0644, 0) == 0 && fchownat(dfd, "users", 1002, 0, 0) == 0,
		    "(given to the daemon's user)");
		is_int(sandbox_users_read(dfd, &u, &err), -1, "one owned by the daemon's user is refused");
		ok(fchownat(dfd, "users", 0, 0, 0) == 0 && fchown(dfd, 1002, 1001) == 0 &&
		    fchmod(dfd, 0750) == 0, "(a .sandbox of uid 1002, group 1001, mode 0750)");
		is_int(file_mode_as(dfd, 1002), 0644, "its daemon writes files the agent reads (0644)");
		is_int(file_mode_as(dfd, 1001), 0644, "and its agent files the daemon reads");
		is_int(file_mode_as(dfd, 1003), 0600, "a third user: 0600");
		is_int(sandbox_file_mode(dfd), 0600, "root: 0600");
		ok(fchownat(dfd, "box", 1002, 1001, 0) == 0 && fchmodat(dfd, "box", 01770, 0) == 0,
		    "(box: the daemon's, the agent's group may drop files, sticky)");
		is_int(fchmod_as(dfd, 1001, 0644, 0602), 0, "the agent, umask 077: a receipt 0644, "
		    "its wake FIFO 0602, a request 0644 (sandbox_fchmod, write_atomic)");
		ok(fchownat(dfd, "users", 1002, 0, 0) == 0, "(the users file given to the daemon)");
		is_int(file_mode_as(dfd, 1002), 0600, "a bad users file: 0600, the daemon's 0750 "
		    ".sandbox opens nothing");
		ok(fchownat(dfd, "users", 0, 0, 0) == 0 && unlinkat(dfd, "users", 0) == 0,
		    "(no users file)");
		is_int(file_mode_as(dfd, 1002), 0600, "none: 0600 (deployment 1, a chmod 0750)");
		is_int(file_mode_as(dfd, 1001), 0600, "and for another user too");
		close(dfd);
		dfd = users_at(dir, cases[0].text);
		ok(fchownat(dfd, "users", 0, 0, 0) == 0, "(the users file back)");
		close(dfd);
		/* Root is never the agent: root's sandbox_open refuses it. */
		if (mkdtemp(folder) && snprintf(sb, sizeof(sb), "%s/.sandbox", folder) > 0 &&
		    rename(dir, sb) == 0) {
			ok(sandbox_open(folder, &err) < 0 && strstr(err.msg, "not handed over"),
			    "root's sandbox_open refuses a .sandbox handed over to others: %s",
			    err.msg);
			dfd = open(sb, O_RDONLY | O_DIRECTORY);
			unlinkat(dfd, "users", 0);
			unlinkat(dfd, "box", AT_REMOVEDIR);
			close(dfd);
			rmdir(sb);
			rmdir(folder);
			return;
		}
		ok(0, "cannot move the test dir into a folder");
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	unlinkat(dfd, "users", 0);
	unlinkat(dfd, "box", AT_REMOVEDIR);
	close(dfd);
	rmdir(dir);
}

/* wake_open makes and opens the FIFO without following a symlink on the
 * way: queue/ or queue/wake swapped for one gets no FIFO through it. */
static void
test_wake_nofollow(void)
{
	char dir[] = "/tmp/sbx-wake.XXXXXX", out[] = "/tmp/sbx-wakeo.XXXXXX", p[128];
	const char *id = "0123456789abcdef";
	struct stat st;
	int sbfd, fd;

	if (!mkdtemp(dir) || !mkdtemp(out)) {
		ok(0, "mkdtemp");
		return;
	}
	sbfd = open(dir, O_RDONLY | O_DIRECTORY);
	ok(mkdirat(sbfd, "queue", 0700) == 0, "(a .sandbox with queue/)");
	fd = wake_open(sbfd, id);
	ok(fd >= 0, "wake_open makes the FIFO in queue/wake");
	snprintf(p, sizeof(p), "%s/queue/wake/%s", dir, id);
	ok(fd >= 0 && stat(p, &st) == 0 && S_ISFIFO(st.st_mode), "a FIFO there");
	if (fd >= 0)
		close(fd);
	unlink(p);
	snprintf(p, sizeof(p), "%s/queue/wake", dir);
	ok(rmdir(p) == 0 && symlink(out, p) == 0, "(queue/wake swapped for a symlink)");
	errno = 0;
	fd = wake_open(sbfd, id);
	ok(fd < 0, "wake_open refuses it");
	snprintf(p, sizeof(p), "%s/%s", out, id);
	ok(lstat(p, &st) < 0 && errno == ENOENT, "and made no FIFO through it");
	if (fd >= 0)
		close(fd);
	unlink(p);
	snprintf(p, sizeof(p), "%s/queue/wake", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/queue", dir);
	ok(rmdir(p) == 0 && symlink(out, p) == 0, "(queue/ swapped for a symlink)");
	fd = wake_open(sbfd, id);
	ok(fd < 0, "wake_open refuses it");
	snprintf(p, sizeof(p), "%s/wake", out);
	ok(lstat(p, &st) < 0 && errno == ENOENT, "and made no wake directory through it");
	if (fd >= 0)
		close(fd);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/queue", dir);
	unlink(p);
	close(sbfd);
	rmdir(dir);
	rmdir(out);
}

/* The inode at DIR/queue/wake/NAME (0 when there is none). */
static ino_t
wake_ino(const char *dir, const char *name)
{
	char p[160];
	struct stat st;

	snprintf(p, sizeof(p), "%s/queue/wake/%s", dir, name);
	return lstat(p, &st) == 0 ? st.st_ino : 0;
}

/* How many names queue/wake holds, dot names (the pool) included. */
static int
wake_names(const char *dir)
{
	char p[160];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof(p), "%s/queue/wake", dir);
	if (!(d = opendir(p)))
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* A planted .free.00 is not taken: wake_open gives a fresh FIFO, which
 * is not the planted inode (held by an O_PATH fd meanwhile, so that its
 * number is not reused), and the slot is emptied. */
static void
wake_refuses(int sbfd, const char *dir, const char *id, const char *what)
{
	char p[160];
	struct stat pst;
	int fd, pfd;
	ino_t made;

	snprintf(p, sizeof(p), "%s/queue/wake/.free.00", dir);
	pfd = open(p, O_PATH | O_NOFOLLOW);
	ok(pfd >= 0 && fstat(pfd, &pst) == 0, "(%s planted in the pool)", what);
	fd = wake_open(sbfd, id);
	made = wake_ino(dir, id);
	ok(fd >= 0 && made != 0 && made != pst.st_ino && wake_ino(dir, ".free.00") == 0,
	    "%s in the pool is not taken: a FIFO is made", what);
	wake_close(sbfd, id, fd);
	ok(wake_ino(dir, ".free.00") == made, "... and that one is given back to the pool");
	unlink(p);
	if (pfd >= 0)
		close(pfd);
}

/* The pool of free wake FIFOs: taken by rename, checked, drained, given
 * back by the last hook that waits on it, bounded, swept. */
static void
test_wake_pool(void)
{
	char dir[] = "/tmp/sbx-wakep.XXXXXX", p[160], q[160];
	const char *a = "00000000000000aa", *b = "00000000000000bb", *c = "00000000000000cc";
	struct stat st;
	ino_t ino;
	int sbfd, fd, fd2, hold, i, more;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	sbfd = open(dir, O_RDONLY | O_DIRECTORY);
	ok(mkdirat(sbfd, "queue", 0700) == 0, "(a .sandbox with queue/)");
	fd = wake_open(sbfd, a);
	ino = wake_ino(dir, a);
	ok(fd >= 0 && ino != 0, "an empty pool: the FIFO is made");
	wake_close(sbfd, a, fd);
	ok(wake_ino(dir, a) == 0 && wake_ino(dir, ".free.00") == ino,
	    "given back: renamed to the first free slot, not removed");

	/* Bytes in it while someone holds it (the agent): drained at the take. */
	snprintf(p, sizeof(p), "%s/queue/wake/.free.00", dir);
	hold = open(p, O_RDWR | O_NONBLOCK);
	ok(hold >= 0 && write(hold, "forged", 6) == 6, "(bytes written into a pooled FIFO held open)");
	fd = wake_open(sbfd, b);
	ok(fd >= 0 && wake_ino(dir, b) == ino && wake_ino(dir, ".free.00") == 0,
	    "the next request takes it: the same inode, renamed to its id");
	ok(wake_wait(fd, 0) == 0, "the stale bytes were drained: no wake");
	close(hold);

	/* A second hook on the same request joins; the last one gives it back. */
	fd2 = wake_open(sbfd, b);
	ok(fd2 >= 0 && fstat(fd2, &st) == 0 && st.st_ino == ino, "an identical call joins the FIFO");
	wake_close(sbfd, b, fd);
	ok(wake_ino(dir, b) == ino, "the first to finish leaves it: the other still waits on it");
	wake_close(sbfd, b, fd2);
	ok(wake_ino(dir, b) == 0 && wake_ino(dir, ".free.00") == ino, "the last one gives it back");

	/* Unfit pooled FIFOs. */
	snprintf(q, sizeof(q), "%s/outside-link", dir);
	ok(link(p, q) == 0, "(the pooled FIFO hard-linked elsewhere)");
	wake_refuses(sbfd, dir, c, "a FIFO of two links");
	ok(lstat(q, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_nlink == 1,
	    "... the other link is left alone");
	unlink(q);
	ok(mkfifo(p, 0666) == 0 && chmod(p, 0666) == 0, "(a FIFO of mode 0666 in the pool)");
	wake_refuses(sbfd, dir, c, "a FIFO of another mode");
	unlink(p);
	ok((i = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0, "(a regular file in the pool)");
	close(i);
	wake_refuses(sbfd, dir, c, "a regular file");
	unlink(p);
	snprintf(q, sizeof(q), "%s/outside-fifo", dir);
	ok(mkfifo(q, 0600) == 0 && symlink(q, p) == 0, "(a symlink to a FIFO outside in the pool)");
	wake_refuses(sbfd, dir, c, "a symlink");
	ok(lstat(q, &st) == 0 && S_ISFIFO(st.st_mode), "... its target is left alone");
	unlink(q);
	unlink(p);
	ok(mkfifo(p, 0600) == 0 && (hold = open(p, O_RDWR | O_NONBLOCK)) >= 0 &&
	    flock(hold, LOCK_EX) == 0, "(a pooled FIFO the agent holds locked)");
	wake_refuses(sbfd, dir, c, "a FIFO locked by another");
	close(hold);
	unlink(p);
	/* A shared lock is one too: a hook that still waits on a FIFO that
	 * went to the pool holds one; the next hook must not share it. */
	ok(mkfifo(p, 0600) == 0 && (hold = open(p, O_RDWR | O_NONBLOCK)) >= 0 &&
	    flock(hold, LOCK_SH) == 0, "(a pooled FIFO another holds with a shared lock)");
	wake_refuses(sbfd, dir, c, "a FIFO another holds a shared lock on");
	close(hold);
	unlink(p);
	/* Directories planted in the slot: out of the way, a FIFO made. */
	ok(mkdir(p, 0700) == 0, "(an empty directory in the pool)");
	wake_refuses(sbfd, dir, c, "an empty directory");
	unlink(p);
	snprintf(q, sizeof(q), "%s/queue/wake/.free.00/keep", dir);
	ok(mkdir(p, 0700) == 0 && (i = open(q, O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0 &&
	    close(i) == 0 && lstat(p, &st) == 0, "(a directory with a file in the pool)");
	ino = st.st_ino;
	wake_refuses(sbfd, dir, c, "a directory that is not empty");
	snprintf(q, sizeof(q), "%s/queue/wake/.moved.%llu/keep", dir, (unsigned long long)ino);
	ok(lstat(q, &st) == 0 && S_ISREG(st.st_mode), "... it is moved aside, what is in it kept");
	unlink(q);
	snprintf(q, sizeof(q), "%s/queue/wake/.moved.%llu", dir, (unsigned long long)ino);
	rmdir(q);
	unlink(p);
	/* The sweep empties slots the same way. */
	snprintf(q, sizeof(q), "%s/queue/wake/.free.01", dir);
	ok(mkdir(p, 0700) == 0 && mkdir(q, 0700) == 0 && lstat(q, &st) == 0,
	    "(an empty directory at .free.00, another at .free.01)");
	ino = st.st_ino;
	snprintf(q, sizeof(q), "%s/queue/wake/.free.01/keep", dir);
	ok(mkfifo(q, 0600) == 0, "(a FIFO inside .free.01)");
	ok(wake_sweep(sbfd, SBX_WAKE_SWEEP_MAX, &more) >= 0 && wake_ino(dir, ".free.00") == 0 &&
	    wake_ino(dir, ".free.01") == 0, "wake_sweep empties both slots");
	snprintf(q, sizeof(q), "%s/queue/wake/.moved.%llu/keep", dir, (unsigned long long)ino);
	ok(lstat(q, &st) == 0 && S_ISFIFO(st.st_mode), "... the one not empty moved aside, whole");
	unlink(q);
	snprintf(q, sizeof(q), "%s/queue/wake/.moved.%llu", dir, (unsigned long long)ino);
	rmdir(q);

	/* wake_renew: the same fd while the name is its FIFO; else another. */
	fd = wake_open(sbfd, a);
	ino = wake_ino(dir, a);
	ok(fd >= 0 && wake_renew(sbfd, a, fd) == fd, "wake_renew keeps a FIFO still at its name");
	snprintf(q, sizeof(q), "%s/queue/wake/%s", dir, a);
	ok(rename(q, p) == 0, "(its FIFO moved into the pool while the hook waits)");
	fd = wake_renew(sbfd, a, fd);
	ok(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == wake_ino(dir, a) && st.st_ino != 0,
	    "wake_renew of a FIFO no longer at its name gives one that is");
	ok(wake_ino(dir, ".free.00") == ino || wake_ino(dir, a) == ino,
	    "... the old one taken again from the pool or left there");
	wake_close(sbfd, a, fd);
	for (i = 0; i < SBX_WAKE_POOL; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/.free.%02d", dir, i);
		unlink(q);
	}
	ok(wake_names(dir) == 0, "(queue/wake empty again)");

	/* Bounded: with every slot taken the name of a FIFO given back goes. */
	for (i = 0; i < SBX_WAKE_POOL; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/.free.%02d", dir, i);
		(void)mkfifo(q, 0600);
	}
	fd = wake_open(sbfd, a);
	ok(fd >= 0 && wake_ino(dir, ".free.00") == 0, "a full pool: its first slot is taken");
	ok(mkfifo(p, 0600) == 0, "(the slot filled again)");
	wake_close(sbfd, a, fd);
	ok(wake_ino(dir, a) == 0 && wake_names(dir) == SBX_WAKE_POOL,
	    "given back to a full pool: the name goes, the pool stays at %d", SBX_WAKE_POOL);

	/* The sweep: a pooled FIFO stays; leftovers (a killed hook's FIFO)
	 * go to a free slot, or go; junk goes; a held FIFO stays. */
	snprintf(q, sizeof(q), "%s/queue/wake/.free.05", dir);
	unlink(q);
	snprintf(q, sizeof(q), "%s/queue/wake/.free.07", dir);
	unlink(q);
	ok(symlink("/nonexistent", q) == 0, "(a symlink in a slot)");
	for (i = 0; i < 3; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/%016x", dir, 0xd0 + i);
		(void)mkfifo(q, 0600);
	}
	snprintf(q, sizeof(q), "%s/queue/wake/.free.99", dir);
	(void)mkfifo(q, 0600);
	snprintf(q, sizeof(q), "%s/queue/wake/junk", dir);
	(void)mkfifo(q, 0600);
	fd = wake_open(sbfd, c);
	ok(wake_sweep(sbfd, SBX_WAKE_SWEEP_MAX, &more) >= 0 && !more, "wake_sweep runs");
	ok(wake_ino(dir, c) != 0, "it leaves the FIFO a hook waits on");
	ok(wake_ino(dir, ".free.05") != 0 && wake_ino(dir, ".free.07") != 0 &&
	    lstat(q, &st) < 0, "two leftovers fill the free slots (the symlink emptied first)");
	ok(wake_ino(dir, ".free.99") == 0 && wake_ino(dir, "junk") == 0,
	    "names that are neither slots nor requests go");
	ok(wake_names(dir) == SBX_WAKE_POOL + 1, "the rest goes: %d slots and the waiting hook's",
	    SBX_WAKE_POOL);
	wake_close(sbfd, c, fd);

	/* Every slot planted with a file, leftovers beside them: whatever
	 * order readdir gives, the slots are emptied first and refilled. */
	for (i = 0; i < SBX_WAKE_POOL; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/.free.%02d", dir, i);
		unlink(q);
		close(open(q, O_WRONLY | O_CREAT | O_EXCL, 0600));
	}
	for (i = 0; i < 40; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/%016x", dir, 0x100 + i);
		(void)mkfifo(q, 0600);
	}
	ok(wake_sweep(sbfd, SBX_WAKE_SWEEP_MAX, &more) >= 0, "wake_sweep runs");
	for (i = 0, fd = 0; i < SBX_WAKE_POOL; i++) {
		snprintf(q, sizeof(q), "%s/queue/wake/.free.%02d", dir, i);
		fd += lstat(q, &st) == 0 && S_ISFIFO(st.st_mode);
	}
	ok(fd == SBX_WAKE_POOL && wake_names(dir) == SBX_WAKE_POOL,
	    "planted files in every slot: replaced by %d leftovers, the others gone", fd);

	snprintf(q, sizeof(q), "rm -rf '%s'", dir);
	close(sbfd);
	ok(system(q) == 0, "(cleaned up)");
}

int
main(void)
{
	test_users();
	test_holder();
	test_paths();
	test_quote();
	test_intent();
	test_intent_refused();
	test_wake_nofollow();
	test_wake_pool();
	return tap_done();
}
