/*
 * cmd_jail.c - `sbx jail [-C DIR] [--login] [--offline] [--] COMMAND [ARG...]`:
 * runs COMMAND, and everything it starts, under bubblewrap (see jail.h
 * for the mounts, hook/jail_init.c for what runs first inside).
 *
 * MUST check everything it can before COMMAND starts, and exit 125 with
 * the command that fixes it: no bwrap, user namespaces off, no folder or
 * no accepted policy, sbxd not serving the folder, the proxy cannot
 * start. MUST stop the proxy and remove its placeholders and staging dir
 * when the jail ends. MUST stop the jail when a host entry under one of
 * its mounts is removed or renamed over (the mount would be gone inside).
 * Exit: COMMAND's status (128+N for a signal), 125 setup failed or jail
 * stopped, 126 cannot run, 127 not found (like env).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "approver/jail.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/trust/accept.h"
#include "policy/policy.h"

#define PROXY_READY_MS  5000
#define JAIL_SETUP_FAIL 125

static volatile sig_atomic_t bwrap_pid;

static void
on_term(int sig)
{
	if (bwrap_pid > 0)
		kill((pid_t)bwrap_pid, sig);
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sbx jail [-C DIR] [--login] [--offline] [--] COMMAND [ARG...]\n"
	    "\n"
	    "Runs COMMAND (an agent: claude, codex, bash...) and everything it starts\n"
	    "under bubblewrap. Inside: / read-only; the project read-write except\n"
	    ".sandbox/ (only the queue's drop boxes are writable) and the protected\n"
	    "paths (.claude/, .git/hooks, .git/config, .envrc, .mcp.json, .codex/,\n"
	    ".cursor/, .husky/, .vscode/, .idea/, the policy's denyWrite), even those\n"
	    "not created yet; HOME read-only except ~/.claude and ~/.codex (not their\n"
	    "settings, hooks and plugins); credentials (~/.ssh, ~/.aws, ..., the policy's\n"
	    "denyRead) and the sbx secret keys hidden; a private /tmp (TMPDIR=/tmp);\n"
	    "own PID, IPC, UTS and network namespaces; no capabilities, no new\n"
	    "privileges; a seccomp filter (no Unix sockets, no TIOCSTI, no io_uring).\n"
	    "HTTP(S) goes through sbx-proxy, which asks a human for unknown hosts.\n"
	    "\n"
	    "  -C DIR     the project folder (default: walk up from the current directory)\n"
	    "  --login    let the agent read and refresh its own login (~/.claude.json,\n"
	    "             ~/.claude/.credentials.json, ~/.codex/auth.json); hidden otherwise\n"
	    "  --offline  no proxy: the jail has no network at all\n"
	    "\n"
	    "Exit status: COMMAND's (128+N if a signal N ended it), 125 if the jail\n"
	    "could not be set up (the message says how to fix it) or was stopped\n"
	    "because a protected path was replaced outside it, 126 if COMMAND\n"
	    "cannot run, 127 if it is not found.\n");
}

__attribute__((format(printf, 1, 2)))
static int
setup_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sbx jail: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return JAIL_SETUP_FAIL;
}

/* The first executable NAME on PATH, into out; -1 if none. */
static int
find_in_path(const char *name, char *out, size_t outsz)
{
	const char *path = getenv("PATH"), *p, *e;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e == p)
			continue;
		if (snprintf(out, outsz, "%.*s/%s", (int)(e - p), p, name) < (int)outsz &&
		    access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

const char *
jail_userns_problem(void)
{
	if (geteuid() == 0)
		return NULL;
	if (file_long("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return "user namespaces are disabled for unprivileged users; enable them: "
		    "`sudo sysctl -w kernel.unprivileged_userns_clone=1`";
	if (file_long("/proc/sys/user/max_user_namespaces") == 0)
		return "user namespaces are disabled (user.max_user_namespaces=0); enable them: "
		    "`sudo sysctl -w user.max_user_namespaces=15000`";
	if (file_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		return "AppArmor restricts unprivileged user namespaces; allow bwrap "
		    "(`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or an "
		    "AppArmor profile for /usr/bin/bwrap)";
	return NULL;
}

int
jail_sbxd_serving(const char *folder)
{
	struct sbx_err err;
	int sbfd, held;

	if ((sbfd = sandbox_open(folder, &err)) < 0)
		return 0;
	held = sbxd_holder(sbfd) > 0;
	close(sbfd);
	return held;
}

/* The strings of a JSON array (borrowed from the tree), in a new vector. */
static const char **
json_strings(const cJSON *arr, size_t *n)
{
	const cJSON *e;
	const char **v;
	size_t i = 0;

	*n = 0;
	if (!(v = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v))))
		return NULL;
	cJSON_ArrayForEach(e, arr)
		if (cJSON_IsString(e))
			v[i++] = e->valuestring;
	*n = i;
	return v;
}

static void
stop_proxy(pid_t pid)
{
	int i;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Starts sbx-proxy and waits for its "ready" line; its pid, or -1. */
static pid_t
start_proxy(const char *proxy, const char *folder, const char *sock, const char *session)
{
	char fdnum[16], line[16] = "";
	struct pollfd pfd;
	int p[2], left = PROXY_READY_MS;
	ssize_t r;
	size_t got = 0;
	int64_t t0;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		snprintf(fdnum, sizeof(fdnum), "%d", p[1]);
		execl(proxy, "sbx-proxy", "-C", folder, "--socket", sock, "--session", session,
		    "--ready-fd", fdnum, (char *)NULL);
		fprintf(stderr, "sbx jail: cannot run %s: %s\n", proxy, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	t0 = mono_ms();
	while (got < sizeof(line) - 1 && left > 0) {
		pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
		if (poll(&pfd, 1, left) <= 0)
			break;
		r = read(p[0], line + got, sizeof(line) - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
		if (memchr(line, '\n', got))
			break;
		left = PROXY_READY_MS - (int)(mono_ms() - t0);
	}
	close(p[0]);
	if (strncmp(line, "ready\n", 6) != 0) {
		stop_proxy(pid);
		return -1;
	}
	return pid;
}

static int
stage_file(const char *stage, const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd;

	if (xsnprintf(path, sizeof(path), "%s/%s", stage, name) < 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The stage: a private directory outside the project with an empty
 * directory and an empty file to bind over hidden and protected paths. */
static int
make_stage(char *stage, size_t sz, const char *folder)
{
	char path[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	size_t n = strlen(folder);
	int fd;

	/* Never inside the project, where the agent could change it. */
	if (!tmp || *tmp != '/' || (!strncmp(tmp, folder, n) && (tmp[n] == '/' || !tmp[n])))
		tmp = "/tmp";
	if (xsnprintf(stage, sz, "%s/sbx-jail.XXXXXX", tmp) < 0 || !mkdtemp(stage))
		return -1;
	if (xsnprintf(path, sizeof(path), "%s/empty", stage) < 0 || mkdir(path, 0555) < 0)
		return -1;
	if (xsnprintf(path, sizeof(path), "%s/empty-file", stage) < 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
		return -1;
	close(fd);
	if (stage_file(stage, "dot-file", jail_ph_text(JAIL_PH_DOT)) < 0 ||
	    stage_file(stage, "json-file", jail_ph_text(JAIL_PH_JSON)) < 0)
		return -1;
	return 0;
}

static void
remove_stage(const char *stage)
{
	char path[PATH_MAX];

	if (!*stage)
		return;
	if (xsnprintf(path, sizeof(path), "%s/empty-file", stage) >= 0)
		unlink(path);
	if (xsnprintf(path, sizeof(path), "%s/dot-file", stage) >= 0)
		unlink(path);
	if (xsnprintf(path, sizeof(path), "%s/json-file", stage) >= 0)
		unlink(path);
	if (xsnprintf(path, sizeof(path), "%s/empty", stage) >= 0)
		rmdir(path);
	if (xsnprintf(path, sizeof(path), "%s/proxy.sock", stage) >= 0)
		unlink(path);
	rmdir(stage);
}

/*
 * The folder's jail lock, CONFIG/jail-locks/HASH.lock (outside every
 * jail: the config dir is rebuilt without it). Each jail holds it shared
 * while it runs; only one that can take it exclusively at the end removes
 * its placeholders. Removing a directory on the host detaches the mounts
 * on it in every mount namespace, so a placeholder must not vanish under
 * another jail of the same folder. An fd, or -1 with errno set.
 */
static int
jail_lock(const char *config, const char *folder)
{
	unsigned char h[8];
	char hex[17], path[PATH_MAX];
	int fd;

	crypto_generichash(h, sizeof(h), (const unsigned char *)folder, strlen(folder), NULL, 0);
	hex_encode(hex, h, sizeof(h));
	if (xsnprintf(path, sizeof(path), "%s/jail-locks", config) < 0 ||
	    (mkdir(path, 0700) < 0 && errno != EEXIST) ||
	    xsnprintf(path, sizeof(path), "%s/jail-locks/%s.lock", config, hex) < 0)
		return -1;
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A placeholder's line in the lock file starts with its kind (enum jail_ph). */
static const char ph_kinds[] = "dfje";

/* Does the file at path hold exactly text? */
static int
file_holds(const char *path, const char *text)
{
	char buf[8];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n >= 0 && (size_t)n == strlen(text) && !memcmp(buf, text, (size_t)n);
}

/*
 * With the lock held exclusively: removes every placeholder recorded in
 * the lock file that is still what was made (an empty directory, or a
 * file holding what was written), and staging dirs of jails that were
 * killed, then empties the file.
 */
static void
remove_placeholders(int lockfd)
{
	char *text, *line, *nl;
	size_t len;

	if (lseek(lockfd, 0, SEEK_SET) < 0 || !(text = fd_read_all(lockfd, 1 << 20, &len)))
		return;
	for (line = text; *line; line = nl + 1) {
		const char *kind;
		struct stat st;

		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		if (line[0] == 'd' && line[1] == ' ' && line[2] == '/')
			(void)rmdir(line + 2);
		/* A staging dir a killed jail left behind. */
		else if (line[0] == 's' && line[1] == ' ' && line[2] == '/')
			remove_stage(line + 2);
		/* A file only while it holds what we wrote: then it is ours. */
		else if (line[0] && (kind = strchr(ph_kinds, line[0])) && line[1] == ' ' &&
		    line[2] == '/' && lstat(line + 2, &st) == 0 && S_ISREG(st.st_mode) &&
		    file_holds(line + 2, jail_ph_text((int)(kind - ph_kinds))))
			(void)unlink(line + 2);
	}
	free(text);
	if (ftruncate(lockfd, 0) < 0)
		return;         /* the next jail tries again; rmdir is idempotent */
}

/*
 * While the jail runs: the host directory entries its mounts sit on
 * (jail_plan_watched). Removing or renaming over one on the host detaches
 * the mount in the jail too, and the path inside then reaches the host's
 * new file: so when that happens, the jail is stopped.
 */
struct watch {
	int ifd;
	size_t n;
	struct {
		int wd;
		const char *name;       /* borrowed from the plan */
		const char *path;
	} *w;
};

static void
watch_free(struct watch *wt)
{
	if (wt->ifd >= 0)
		close(wt->ifd);
	free(wt->w);
	wt->ifd = -1;
	wt->w = NULL;
}

static int
path_below(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	return n && !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/*
 * 0, or -1 with err set (inotify limits). Only what lies in the project,
 * HOME or the config dir: the user's own files, which the user or their
 * tools may replace. System files (a hidden /etc/shadow, rewritten by
 * passwd or useradd) are not watched: that would stop every jail at each
 * change of a password; their contents matter only to an agent running
 * as root.
 */
static int
watch_setup(struct watch *wt, const struct jail_plan *plan, const char *folder,
    const char *home, const char *config, struct sbx_err *err)
{
	char dir[PATH_MAX];
	const char *path, *slash;
	size_t i;
	int wd;

	wt->n = 0;
	wt->w = NULL;
	if ((wt->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) < 0 ||
	    !(wt->w = calloc(plan->n + 1, sizeof(*wt->w)))) {
		err_set(err, "cannot watch the protected paths: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < plan->n; i++) {
		path = plan->m[i].path;
		if (!jail_plan_watched(plan, i) || !(path_below(path, folder) ||
		    path_below(path, home) || path_below(path, config)))
			continue;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			snprintf(dir, sizeof(dir), "/");
		else if (xsnprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) < 0)
			continue;
		wd = inotify_add_watch(wt->ifd, dir, IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
		    IN_ONLYDIR);
		if (wd < 0) {
			err_set(err, "cannot watch %s: %s%s", dir, strerror(errno), errno == ENOSPC ?
			    "; raise it: `sysctl fs.inotify.max_user_watches=65536`" : "");
			goto fail;
		}
		wt->w[wt->n].wd = wd;
		wt->w[wt->n].name = slash ? slash + 1 : path;
		wt->w[wt->n].path = path;
		wt->n++;
	}
	return 0;
fail:
	watch_free(wt);
	return -1;
}

/* The watched path an inotify buffer names, or NULL. */
static const char *
watch_hit(const struct watch *wt, const char *buf, ssize_t len)
{
	const struct inotify_event *ev;
	ssize_t off;
	size_t k;

	for (off = 0; off + (ssize_t)sizeof(*ev) <= len;
	    off += (ssize_t)sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)(const void *)(buf + off);
		if (!ev->len)
			continue;
		for (k = 0; k < wt->n; k++)
			if (wt->w[k].wd == ev->wd && !strcmp(wt->w[k].name, ev->name))
				return wt->w[k].path;
	}
	return NULL;
}

/*
 * After the jail was stopped because PATH changed: the agent may have won
 * the moment between the host's change and the stop. For a git config,
 * print the lines that make git run a program, for the human to check.
 */
static void
warn_changed(const char *path)
{
	static const char *const runs[] = { "hookspath", "fsmonitor", "sshcommand", "pager",
		"editor", "askpass", "helper", "textconv", "program", "[alias", "[filter",
		"[include", "[includeif", "command", "worktree", NULL };
	char line[512], low[512];
	size_t k, i;
	FILE *f;

	if (strlen(path) < 12 || strcmp(path + strlen(path) - 12, "/.git/config") ||
	    !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < sizeof(low) - 1 && line[i]; i++)
			low[i] = (char)(line[i] >= 'A' && line[i] <= 'Z' ? line[i] + 32 : line[i]);
		low[i] = '\0';
		for (k = 0; runs[k]; k++)
			if (strstr(low, runs[k])) {
				fprintf(stderr, "sbx jail:   runs a program: %s", line);
				break;
			}
	}
	fclose(f);
}

/*
 * Waits for bwrap, reading its JSON status and the watch. *started: it
 * reported a child pid. Returns the path that made it stop the jail, or
 * NULL.
 */
static const char *
watch_jail(struct watch *wt, pid_t pid, int statusfd, int *started, int *status)
{
	char sbuf[4096], ibuf[4096] __attribute__((aligned(8)));
	const char *hit = NULL, *h, *cp;
	size_t slen = 0;
	long child;
	struct pollfd pfd[3];
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), n;
	ssize_t r;

	for (;;) {
		if (waitpid(pid, status, WNOHANG) == pid)
			break;
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = statusfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = wt->ifd, .events = POLLIN };
		if (pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, pidfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
			break;
		if (statusfd >= 0 && pfd[0].revents) {
			r = read(statusfd, sbuf + slen, sizeof(sbuf) - 1 - slen);
			if (r > 0)
				slen += (size_t)r;
			else if (r == 0 || errno != EINTR)
				statusfd = -1;  /* poll ignores a negative fd */
		}
		if (pfd[1].revents && (r = read(wt->ifd, ibuf, sizeof(ibuf))) > 0 &&
		    (h = watch_hit(wt, ibuf, r)) && !hit) {
			hit = h;
			/* The jail's pid 1 first: the kernel then kills every
			 * process in it at once; bwrap after. */
			sbuf[slen] = '\0';
			if ((cp = strstr(sbuf, "\"child-pid\":")) && (child = atol(cp + 12)) > 1)
				kill((pid_t)child, SIGKILL);
			kill(pid, SIGKILL);
		}
	}
	while (statusfd >= 0 && slen < sizeof(sbuf) - 1 &&
	    (r = read(statusfd, sbuf + slen, sizeof(sbuf) - 1 - slen)) > 0)
		slen += (size_t)r;
	sbuf[slen] = '\0';
	*started = strstr(sbuf, "\"child-pid\"") != NULL;
	if (pidfd >= 0)
		close(pidfd);
	return hit;
}

int
cmd_jail(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], bwrap[PATH_MAX], exe[PATH_MAX], exe_dir[PATH_MAX];
	char init[PATH_MAX + 32], proxy[PATH_MAX + 32], sock[PATH_MAX + 32];
	char home[PATH_MAX], cwd[PATH_MAX], stage[PATH_MAX] = "", no_proxy[256];
	char session[33], msg[512], path[PATH_MAX];
	const char **deny_read = NULL, **allow_read = NULL, **self = NULL, **deny_write = NULL;
	const char **protect = NULL, **allowed = NULL;
	size_t n_dr = 0, n_ar = 0, n_self = 0, n_dw = 0, n_allowed = 0, i;
	unsigned char rnd[8];
	struct sbx_ctx local = *c;
	struct jail_paths jp = { 0 };
	struct jail_plan plan = { 0 };
	struct jail_config jc = { 0 };
	struct sigaction sa = { .sa_handler = on_term }, ign = { .sa_handler = SIG_IGN };
	struct sigaction old_int, old_quit, old_term, old_hup;
	const char *problem, *home_env;
	struct sbx_err err;
	struct policy *p = NULL;
	struct stat st;
	cJSON *pj = NULL;
	char **av = NULL;
	int login = 0, offline = 0, rc = JAIL_SETUP_FAIL, sp[2] = { -1, -1 }, started;
	int status = 0, lockfd = -1;
	struct watch wt = { .ifd = -1 };
	const char *changed = NULL;
	pid_t proxy_pid = -1, pid;
	ssize_t n;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-C") && i + 1 < (size_t)argc) {
			local.dir = argv[++i];
		} else if (!strcmp(argv[i], "--login")) {
			login = 1;
		} else if (!strcmp(argv[i], "--offline")) {
			offline = 1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "sbx jail: unknown option %s\n", argv[i]);
			usage(stderr);
			return JAIL_SETUP_FAIL;
		} else {
			break;
		}
	}
	if (i >= (size_t)argc) {
		usage(stderr);
		return JAIL_SETUP_FAIL;
	}
	argv += i;

	if (ctx_folder(&local, folder, sizeof(folder)) < 0)
		return JAIL_SETUP_FAIL;
	if (!(p = policy_load_accepted(folder, c->config, msg, sizeof(msg))))
		return setup_fail("%s", msg);
	if (find_in_path("bwrap", bwrap, sizeof(bwrap)) < 0) {
		rc = setup_fail("bubblewrap is not installed: `sudo apt-get install bubblewrap`");
		goto out;
	}
	if ((problem = jail_userns_problem())) {
		rc = setup_fail("%s", problem);
		goto out;
	}
	if (!jail_sbxd_serving(folder)) {
		rc = setup_fail("sbxd is not serving %s: escalations from the jail would never "
		    "run. Start it: `sbxd %s &` (or `sbxd --all`)", folder, folder);
		goto out;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		rc = setup_fail("cannot find my own executable: %s", strerror(errno));
		goto out;
	}
	exe[n] = '\0';
	snprintf(exe_dir, sizeof(exe_dir), "%s", exe);
	*strrchr(exe_dir, '/') = '\0';
	if (!*exe_dir)
		snprintf(exe_dir, sizeof(exe_dir), "/");
	snprintf(init, sizeof(init), "%s/sbx-jail-init", exe_dir);
	snprintf(proxy, sizeof(proxy), "%s/sbx-proxy", exe_dir);
	if (access(init, X_OK) < 0) {
		rc = setup_fail("%s is missing: install sbx again (`make install`)", init);
		goto out;
	}
	if (!offline && access(proxy, X_OK) < 0) {
		rc = setup_fail("%s is missing, so the jail would have no network: install sbx "
		    "again (`make install`), or run `sbx jail --offline`", proxy);
		goto out;
	}

	/* What the policy protects and hides. */
	if (!(pj = policy_to_json(p))) {
		rc = setup_fail("out of memory");
		goto out;
	}
	{
		const cJSON *fs = cJSON_GetObjectItemCaseSensitive(pj, "filesystem");
		const cJSON *net = cJSON_GetObjectItemCaseSensitive(pj, "network");

		deny_read = json_strings(cJSON_GetObjectItemCaseSensitive(fs, "denyRead"), &n_dr);
		allow_read = json_strings(cJSON_GetObjectItemCaseSensitive(fs, "allowRead"), &n_ar);
		deny_write = json_strings(cJSON_GetObjectItemCaseSensitive(fs, "denyWrite"), &n_dw);
		self = json_strings(cJSON_GetObjectItemCaseSensitive(pj, "selfProtection"), &n_self);
		allowed = json_strings(cJSON_GetObjectItemCaseSensitive(net, "allowedDomains"),
		    &n_allowed);
		protect = calloc(n_dw + n_self + 1, sizeof(*protect));
		if (!deny_read || !allow_read || !deny_write || !self || !allowed || !protect) {
			rc = setup_fail("out of memory");
			goto out;
		}
		memcpy(protect, self, n_self * sizeof(*protect));
		memcpy(protect + n_self, deny_write, n_dw * sizeof(*protect));
	}
	home_env = getenv("HOME");
	if (!home_env || *home_env != '/' || !realpath(home_env, home))
		home[0] = '\0';
	/* The agent's state dir must exist to be writable: HOME is not. */
	if (*home && xsnprintf(path, sizeof(path), "%s/.claude", home) >= 0 &&
	    lstat(path, &st) < 0 && errno == ENOENT)
		(void)mkdir(path, 0700);
	/* Made here so that the jail gets a private one (jail.c). */
	if (*home && xsnprintf(path, sizeof(path), "%s/.claude/shell-snapshots", home) >= 0 &&
	    lstat(path, &st) < 0 && errno == ENOENT)
		(void)mkdir(path, 0700);
	jp = (struct jail_paths){ .folder = folder, .home = *home ? home : NULL,
		.config = stat(c->config, &st) == 0 && S_ISDIR(st.st_mode) ? c->config : NULL,
		.exe_dir = exe_dir, .deny_read = deny_read, .n_deny_read = n_dr,
		.allow_read = allow_read, .n_allow_read = n_ar, .protect = protect,
		.n_protect = n_dw + n_self, .login = login };
	if (jail_plan_build(&plan, &jp, &err) < 0) {
		rc = setup_fail("%s", err.msg);
		goto out;
	}
	if (make_stage(stage, sizeof(stage), folder) < 0) {
		rc = setup_fail("cannot make a staging directory in %s: %s",
		    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
		goto out;
	}
	randombytes_buf(rnd, sizeof(rnd));
	hex_encode(session, rnd, sizeof(rnd));
	if (jail_no_proxy(allowed, n_allowed, no_proxy, sizeof(no_proxy)) < 0)
		snprintf(no_proxy, sizeof(no_proxy), "localhost,127.0.0.1,::1");
	if (!offline) {
		snprintf(sock, sizeof(sock), "%s/proxy.sock", stage);
		if ((proxy_pid = start_proxy(proxy, folder, sock, session)) < 0) {
			rc = setup_fail("the network proxy (%s) did not start (its message is above); "
			    "run `sbx -C %s doctor`, or `sbx jail --offline` for no network",
			    proxy, folder);
			goto out;
		}
	}
	if ((lockfd = jail_lock(c->config, folder)) < 0) {
		rc = setup_fail("cannot take the jail lock for %s in %s/jail-locks: %s",
		    folder, c->config, strerror(errno));
		goto out;
	}
	if (dprintf(lockfd, "s %s\n", stage) < 0) {
		rc = setup_fail("cannot record %s: %s", stage, strerror(errno));
		goto out;
	}
	/* Placeholders for protected paths not created yet: empty
	 * directories, which git ignores; removed again at the end. */
	for (i = 0; i < plan.n_placeholders; i++) {
		const char *ph = plan.placeholders[i], *text;
		int fd, file = plan.placeholder_file[i], made;

		if (file) {
			text = jail_ph_text(file);
			fd = open(ph, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			made = fd >= 0;
			if (fd >= 0 && write_all(fd, text, strlen(text)) < 0) {
				close(fd);
				(void)unlink(ph);
				rc = setup_fail("cannot write %s: %s", ph, strerror(errno));
				goto out;
			}
			if (fd >= 0)
				close(fd);
		} else {
			made = mkdir(ph, 0700) == 0;
		}
		if (made) {
			/* Recorded in the lock file, for whichever jail of this
			 * folder ends last (or the next one, if we are killed). */
			if (dprintf(lockfd, "%c %s\n", ph_kinds[file], ph) < 0) {
				rc = setup_fail("cannot record %s: %s", plan.placeholders[i],
				    strerror(errno));
				goto out;
			}
		} else if (errno != EEXIST) {
			rc = setup_fail("cannot protect %s: %s", plan.placeholders[i], strerror(errno));
			goto out;
		}
	}
	if (!getcwd(cwd, sizeof(cwd)) || (strncmp(cwd, folder, strlen(folder)) ||
	    (cwd[strlen(folder)] != '\0' && cwd[strlen(folder)] != '/')))
		snprintf(cwd, sizeof(cwd), "%s", folder);
	if (watch_setup(&wt, &plan, folder, jp.home, jp.config, &err) < 0) {
		rc = setup_fail("%s", err.msg);
		goto out;
	}
	if (pipe2(sp, O_CLOEXEC) < 0) {
		rc = setup_fail("pipe: %s", strerror(errno));
		goto out;
	}
	jc.bwrap = bwrap;
	jc.init = init;
	jc.stage = stage;
	jc.cwd = cwd;
	jc.proxy_socket = offline ? NULL : sock;
	jc.no_proxy = no_proxy;
	jc.session = session;
	jc.status_fd = 3;
	jc.as_root = geteuid() == 0;
	jc.plan = &plan;
	jc.command = argv;
	if (!(av = jail_argv(&jc))) {
		rc = setup_fail("out of memory");
		goto out;
	}
	if (getenv("SBX_JAIL_DEBUG"))
		for (i = 0; av[i]; i++)
			fprintf(stderr, "%s%s", av[i], av[i + 1] ? " " : "\n");
	/* Terminal signals reach COMMAND through the terminal; we wait. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* Nothing but the terminal and bwrap's status pipe (as fd 3)
		 * goes into the jail. */
		/* bwrap dies with us (and, --die-with-parent, the jail with it). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
			_exit(JAIL_SETUP_FAIL);
		if (sp[1] != 3 && dup2(sp[1], 3) < 0)
			_exit(JAIL_SETUP_FAIL);
		if (fcntl(3, F_SETFD, 0) < 0)
			_exit(JAIL_SETUP_FAIL);
		closefrom(4);
		execv(bwrap, av);
		fprintf(stderr, "sbx jail: cannot run %s: %s\n", bwrap, strerror(errno));
		_exit(JAIL_SETUP_FAIL);
	}
	close(sp[1]);
	sp[1] = -1;
	if (pid < 0) {
		rc = setup_fail("fork: %s", strerror(errno));
		goto out;
	}
	bwrap_pid = pid;
	changed = watch_jail(&wt, pid, sp[0], &started, &status);
	bwrap_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (changed) {
		rc = setup_fail("%s was removed or replaced outside the jail while it ran, which "
		    "lifts its protection inside; the jail was stopped at once. Check that %s "
		    "holds what you expect (the agent may have written it in the moment "
		    "before), then start the jail again", changed, changed);
		warn_changed(changed);
	} else if (!started) {
		rc = setup_fail("bubblewrap could not set up the jail (its message is above)%s",
		    geteuid() ? "; if it is about namespaces, check `sbx doctor`" : "");
	} else if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
	}
out:
	watch_free(&wt);
	stop_proxy(proxy_pid);
	/* Only when no other jail of this folder runs (see jail_lock). */
	if (lockfd >= 0 && flock(lockfd, LOCK_EX | LOCK_NB) == 0)
		remove_placeholders(lockfd);
	if (lockfd >= 0)
		close(lockfd);
	remove_stage(stage);
	if (sp[0] >= 0)
		close(sp[0]);
	if (sp[1] >= 0)
		close(sp[1]);
	jail_argv_free(av);
	jail_plan_free(&plan);
	free(deny_read);
	free(allow_read);
	free(deny_write);
	free(self);
	free(allowed);
	free(protect);
	cJSON_Delete(pj);
	policy_free(p);
	return rc;
}
