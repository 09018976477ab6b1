/*
 * proxy.c - sbx-proxy: the jail's HTTP(S) proxy, run by `sbx jail`
 * OUTSIDE the jail. It listens on a Unix socket that the jail gets
 * bind-mounted (an in-jail forwarder relays 127.0.0.1:PORT to it) and
 * lets a connection out only as the folder's accepted policy says, or
 * after a human approved it through the folder queue. See proxy.h and
 * proxy_conn.c.
 *
 * Rules:
 * - MUST create the socket itself, mode 0600, and never replace an
 *   existing file at its path.
 * - MUST say "ready\n" on --ready-fd only once it listens, and exit
 *   non-zero with one clear line on stderr when it cannot.
 * - MUST stop with its parent (PR_SET_PDEATHSIG and a getppid check) or
 *   on SIGTERM/SIGINT, and then remove its socket.
 * - Links no SQLite and no signing key: it only reads the policy and
 *   writes into the queue's drop boxes, like the hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sodium.h>

#include "common/protocol/queue.h"
#include "daemon/proxy.h"

static volatile sig_atomic_t stop_sig;

static void
on_signal(int sig)
{
	stop_sig = sig;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sbx-proxy -C DIR --socket PATH --session ID [--ready-fd N]\n"
	    "                 [--max-connections N] [--idle-timeout S] [--header-timeout S]\n"
	    "\n"
	    "The HTTP(S) proxy of `sbx jail`, run outside the jail. It listens on the\n"
	    "Unix socket PATH (created, mode 0600) and serves CONNECT host:port (a\n"
	    "tunnel; no TLS interception) and plain-HTTP requests with an absolute URI.\n"
	    "Each host is judged by DIR's accepted policy (network.allowedDomains and\n"
	    "deniedDomains): allowed hosts connect, denied ones get 403 at once, and\n"
	    "any other is asked of a human through DIR/.sandbox/queue, shown as\n"
	    "`network  CONNECT host:port` in `sbx watch` and `sbx pending`. An approval\n"
	    "opens that host:port for the rest of this session (remembered: for good);\n"
	    "no answer within network.ask_timeout_seconds is a 403 that says why.\n"
	    "Every connection is recorded in the audit log (through sbxd).\n"
	    "\n"
	    "  -C DIR               the project folder (holds .sandbox/)\n"
	    "  --socket PATH        the Unix socket to create and listen on\n"
	    "  --session ID         the jail session, shown with each question\n"
	    "  --ready-fd N         write \"ready\\n\" to fd N once listening, then close it\n"
	    "  --max-connections N  connections served at once (default 64); more get 503\n"
	    "  --idle-timeout S     close a connection idle this long (default 300)\n"
	    "  --header-timeout S   time to send the request head (default 30)\n"
	    "\n"
	    "It stops on SIGTERM or SIGINT, or when its parent dies, and removes PATH.\n"
	    "Exit status: 0 stopped, 1 could not start, 2 usage.\n");
}

static int
num_arg(const char *s, int lo, int hi, int *out)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || *e || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int
valid_session(const char *s)
{
	size_t n = strlen(s), k;

	if (n == 0 || n > PROXY_MAX_SESSION)
		return 0;
	for (k = 0; k < n; k++)
		if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
		    (s[k] >= '0' && s[k] <= '9') || s[k] == '-' || s[k] == '_' ||
		    s[k] == '.' || s[k] == ':'))
			return 0;
	return 1;
}

/* Creates and binds the socket; -1 with a message on stderr. */
static int
listen_on(const char *path, struct stat *st)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "sbx-proxy: socket path %s is too long (at most %zu bytes)\n",
		    path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		fprintf(stderr, "sbx-proxy: socket: %s\n", strerror(errno));
		return -1;
	}
	old = umask(077);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		umask(old);
		fprintf(stderr, "sbx-proxy: cannot create the socket %s: %s%s\n", path,
		    strerror(errno), errno == EADDRINUSE ? " (a file is there already; "
		    "sbx-proxy never replaces one: remove it or choose another path)" : "");
		close(fd);
		return -1;
	}
	umask(old);
	if (chmod(path, 0600) < 0 || lstat(path, st) < 0 || listen(fd, 128) < 0) {
		fprintf(stderr, "sbx-proxy: cannot listen on %s: %s\n", path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	return fd;
}

static void *
serve_thread(void *arg)
{
	struct { struct proxy *px; int fd; } *t = arg;
	struct proxy *px = t->px;
	int fd = t->fd;

	free(t);
	proxy_serve(px, fd);
	pthread_mutex_lock(&px->lock);
	px->active--;
	pthread_mutex_unlock(&px->lock);
	return NULL;
}

/* Hands a client to a new thread, or answers 503 over the limit. */
static void
dispatch(struct proxy *px, int fd)
{
	struct { struct proxy *px; int fd; } *t;
	pthread_attr_t attr;
	pthread_t th;
	int busy;

	pthread_mutex_lock(&px->lock);
	busy = px->active >= px->max_conns;
	if (!busy)
		px->active++;
	pthread_mutex_unlock(&px->lock);
	if (busy) {
		proxy_refuse_busy(px, fd);
		return;
	}
	if (!(t = malloc(sizeof(*t))))
		goto fail;
	t->px = px;
	t->fd = fd;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 512 * 1024);
	if (pthread_create(&th, &attr, serve_thread, t) != 0) {
		pthread_attr_destroy(&attr);
		free(t);
		goto fail;
	}
	pthread_attr_destroy(&attr);
	return;
fail:
	pthread_mutex_lock(&px->lock);
	px->active--;
	pthread_mutex_unlock(&px->lock);
	proxy_refuse_busy(px, fd);
}

/* The folder and the config dir; the proxy's drop box created. 0, or
 * -1 (said on stderr). */
static int
proxy_folder(struct proxy *px, const char *dir)
{
	struct sbx_err err;
	int sbfd;

	if (!realpath(dir, px->folder)) {
		fprintf(stderr, "sbx-proxy: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if ((sbfd = sandbox_open(px->folder, &err)) < 0) {
		fprintf(stderr, "sbx-proxy: %s has no usable .sandbox/ (%s); run `sbx init "
		    "%s`\n", px->folder, err.msg, px->folder);
		return -1;
	}
	/* Its own drop box, which the jail cannot write: sbxd records what
	 * arrives there as the proxy's (sbx init and sbxd create it too). */
	if ((mkdirat(sbfd, "proxy", 0700) < 0 && errno != EEXIST) ||
	    (mkdirat(sbfd, "proxy/tmp", 0700) < 0 && errno != EEXIST) ||
	    (mkdirat(sbfd, "proxy/events", 0700) < 0 && errno != EEXIST)) {
		fprintf(stderr, "sbx-proxy: cannot create %s/.sandbox/proxy/: %s\n", px->folder,
		    strerror(errno));
		close(sbfd);
		return -1;
	}
	close(sbfd);
	if (config_dir(px->config, sizeof(px->config)) < 0) {
		fprintf(stderr, "sbx-proxy: cannot find the sbx config dir (set HOME or "
		    "SBX_CONFIG_DIR)\n");
		return -1;
	}
	return 0;
}

/* Tunnels close and every connection is recorded, within a bound (a
 * connection still waiting for a human stays a queued request). */
static void
proxy_drain(struct proxy *px)
{
	int64_t t0;
	int busy;

	px->stopping = 1;
	for (t0 = mono_ms(); mono_ms() - t0 < PROXY_STOP_WAIT_MS; ) {
		pthread_mutex_lock(&px->lock);
		busy = px->active;
		pthread_mutex_unlock(&px->lock);
		if (!busy)
			break;
		poll(NULL, 0, 10);
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "session", required_argument, NULL, 'S' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "max-connections", required_argument, NULL, 'm' },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "header-timeout", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct proxy px;
	struct sigaction sa = { .sa_handler = on_signal };
	const char *dir = NULL, *sock = NULL, *session = NULL;
	struct stat st, now;
	sigset_t block, old;
	pid_t parent = getppid();
	int ready = -1, opt, lfd, fd;
	/* The numeric options: their range and where they go. */
	const struct { int opt, lo, hi; int *to; } nums[] = {
		{ 'r', 0, INT_MAX, &ready }, { 'm', 1, 4096, &px.max_conns },
		{ 'i', 1, 86400, &px.idle_timeout_s }, { 'H', 1, 3600, &px.header_timeout_s },
	};
	size_t k;

	px.max_conns = 64;
	px.idle_timeout_s = 300;
	px.header_timeout_s = 30;
	while ((opt = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'C': dir = optarg; break;
		case 's': sock = optarg; break;
		case 'S': session = optarg; break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			for (k = 0; k < sizeof(nums) / sizeof(nums[0]) && nums[k].opt != opt; k++)
				;
			if (k == sizeof(nums) / sizeof(nums[0]) ||
			    num_arg(optarg, nums[k].lo, nums[k].hi, nums[k].to) < 0)
				goto bad;
		}
	}
	if (optind != argc || !dir || !sock || !session)
		goto bad;
	if (!valid_session(session)) {
		fprintf(stderr, "sbx-proxy: --session must be 1 to %d characters of "
		    "[A-Za-z0-9._:-]\n", PROXY_MAX_SESSION);
		return 2;
	}
	snprintf(px.session, sizeof(px.session), "%s", session);
	/* Die with the parent: the jail's launcher. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent) {
		fprintf(stderr, "sbx-proxy: the parent process is gone\n");
		return 1;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "sbx-proxy: libsodium failed to initialise\n");
		return 1;
	}
	if (proxy_folder(&px, dir) < 0)
		return 1;
	pthread_mutex_init(&px.lock, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if ((lfd = listen_on(sock, &st)) < 0)
		return 1;
	if (ready >= 0) {
		if (write(ready, "ready\n", 6) != 6) {
			fprintf(stderr, "sbx-proxy: cannot write to --ready-fd %d: %s\n", ready,
			    strerror(errno));
			unlink(sock);
			return 1;
		}
		close(ready);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	while (!stop_sig && getppid() == parent) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };

		if (poll(&p, 1, 1000) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* Connection threads leave the stop signals to this one. */
		pthread_sigmask(SIG_BLOCK, &block, &old);
		dispatch(&px, fd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	/* Remove the socket only if it is still the one we made. */
	if (lstat(sock, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev)
		unlink(sock);
	close(lfd);
	proxy_drain(&px);
	return 0;
bad:
	usage(stderr);
	return 2;
}
