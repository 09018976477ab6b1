/*
 * cmd_jail.c - `sbx jail [-C DIR] [--login] [--offline] [--] COMMAND [ARG...]`:
 * runs COMMAND, and everything it starts, under bubblewrap (see jail.h
 * for the mounts, hook/jail_init.c for what runs first inside).
 *
 * MUST check everything it can before COMMAND starts, and exit 125 with
 * the command that fixes it: no bwrap, user namespaces off, no folder or
 * no accepted policy, sbxd not serving the folder, the proxy cannot
 * start. MUST stop the proxy and remove its placeholders and staging dir
 * when the jail ends. Exit: COMMAND's status (128+N for a signal), 125
 * setup failed, 126 cannot run, 127 not found (like env).
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "approver/jail.h"
#include "common/accept.h"
#include "common/json.h"
#include "common/queue.h"
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
	    "not created yet; HOME read-only except ~/.claude (not its settings,\n"
	    "hooks and plugins); credentials (~/.ssh, ~/.aws, ..., the policy's\n"
	    "denyRead) and the sbx secret keys hidden; a private /tmp (TMPDIR=/tmp);\n"
	    "own PID, IPC, UTS and network namespaces; no capabilities, no new\n"
	    "privileges; a seccomp filter (no Unix sockets, no TIOCSTI, no io_uring).\n"
	    "HTTP(S) goes through sbx-proxy, which asks a human for unknown hosts.\n"
	    "\n"
	    "  -C DIR     the project folder (default: walk up from the current directory)\n"
	    "  --login    let the agent read and refresh its own login\n"
	    "             (~/.claude.json, ~/.claude/.credentials.json); hidden otherwise\n"
	    "  --offline  no proxy: the jail has no network at all\n"
	    "\n"
	    "Exit status: COMMAND's (128+N if a signal N ended it), 125 if the jail\n"
	    "could not be set up (the message says how to fix it), 126 if COMMAND\n"
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

static long
read_sysctl(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

const char *
jail_userns_problem(void)
{
	if (geteuid() == 0)
		return NULL;
	if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return "user namespaces are disabled for unprivileged users; enable them: "
		    "`sudo sysctl -w kernel.unprivileged_userns_clone=1`";
	if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
		return "user namespaces are disabled (user.max_user_namespaces=0); enable them: "
		    "`sudo sysctl -w user.max_user_namespaces=15000`";
	if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
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

/* The stage: a private directory outside the project with an empty
 * directory and an empty file to bind over hidden and protected paths. */
static int
make_stage(char *stage, size_t sz)
{
	char path[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (!tmp || *tmp != '/')
		tmp = "/tmp";
	if (xsnprintf(stage, sz, "%s/sbx-jail.XXXXXX", tmp) < 0 || !mkdtemp(stage))
		return -1;
	if (xsnprintf(path, sizeof(path), "%s/empty", stage) < 0 || mkdir(path, 0555) < 0)
		return -1;
	if (xsnprintf(path, sizeof(path), "%s/empty-file", stage) < 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
		return -1;
	close(fd);
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

/*
 * With the lock held exclusively: removes every placeholder recorded in
 * the lock file that is still an empty directory (rmdir removes nothing
 * else), then empties the file.
 */
static void
remove_placeholders(int lockfd)
{
	char *text, *line, *nl;
	size_t len;

	if (lseek(lockfd, 0, SEEK_SET) < 0 || !(text = fd_read_all(lockfd, 1 << 20, &len)))
		return;
	for (line = text; *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		if (line[0] == '/')
			(void)rmdir(line);
	}
	free(text);
	if (ftruncate(lockfd, 0) < 0)
		return;         /* the next jail tries again; rmdir is idempotent */
}

/* Reads bwrap's JSON status until EOF; 1 once it reported a child pid. */
static int
read_status(int fd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t r;

	while (len < sizeof(buf) - 1) {
		r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	return strstr(buf, "\"child-pid\"") != NULL;
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
	jp.folder = folder;
	jp.home = *home ? home : NULL;
	jp.config = stat(c->config, &st) == 0 && S_ISDIR(st.st_mode) ? c->config : NULL;
	jp.exe_dir = exe_dir;
	jp.deny_read = deny_read;
	jp.n_deny_read = n_dr;
	jp.allow_read = allow_read;
	jp.n_allow_read = n_ar;
	jp.protect = protect;
	jp.n_protect = n_dw + n_self;
	jp.login = login;
	if (jail_plan_build(&plan, &jp, &err) < 0) {
		rc = setup_fail("%s", err.msg);
		goto out;
	}
	if (make_stage(stage, sizeof(stage)) < 0) {
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
	/* Placeholders for protected paths not created yet: empty
	 * directories, which git ignores; removed again at the end. */
	for (i = 0; i < plan.n_placeholders; i++) {
		if (mkdir(plan.placeholders[i], 0700) == 0) {
			/* Recorded in the lock file, for whichever jail of this
			 * folder ends last (or the next one, if we are killed). */
			if (dprintf(lockfd, "%s\n", plan.placeholders[i]) < 0) {
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
	started = read_status(sp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	bwrap_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (!started) {
		rc = setup_fail("bubblewrap could not set up the jail (its message is above)%s",
		    geteuid() ? "; if it is about namespaces, check `sbx doctor`" : "");
	} else if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		rc = 128 + WTERMSIG(status);
	}
out:
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
