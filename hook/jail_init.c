/*
 * sbx-jail-init - the first program inside `sbx jail` (bubblewrap runs
 * it). It forks COMMAND and stays as its parent, the jail's network
 * forwarder:
 *
 *   listens on 127.0.0.1:PORT in the jail's own network namespace and
 *   relays each connection to the proxy's Unix socket, bound into the
 *   jail by sbx jail (the proxy itself runs outside);
 *
 *   in the child only: no_new_privs, the seccomp filter (no AF_UNIX
 *   sockets, no io_uring, no TIOCSTI/TIOCLINUX, no mounts or new
 *   namespaces), HTTP_PROXY and friends, TMPDIR=/tmp, then exec COMMAND.
 *
 * It is the jail's pid 1 (bwrap --as-pid-1): no other process of ours
 * lives in the jail, and when it exits the kernel kills everything left.
 *
 * MUST load the filter in the branch that execs COMMAND and never
 * before the fork: the forwarder needs AF_UNIX, the agent must not have
 * it. MUST make itself non-dumpable, so that the agent (same uid) cannot
 * ptrace the forwarder to borrow its sockets. MUST bound connections and
 * buffers. Exits with COMMAND's status (128+N for a signal), 125 when it
 * cannot set up, 126/127 when COMMAND cannot be run (like env).
 *
 * usage: sbx-jail-init [--socket PATH [--no-proxy LIST]] [--session ID] -- COMMAND [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <seccomp.h>

#define FWD_MAX_CONNS   256
#define FWD_BUF         (64 * 1024)

struct conn {
	int fd[2];                  /* 0: the client in the jail, 1: the proxy */
	char *buf[2];               /* buf[i]: read from fd[i], to write to fd[!i] */
	size_t len[2], off[2];
	int eof[2];                 /* fd[i] said EOF */
	int shut[2];                /* fd[!i] got SHUT_WR */
};

static struct conn conns[FWD_MAX_CONNS];
static size_t nconns;
static char sock_path[108];

static void
die_setup(const char *what)
{
	fprintf(stderr, "sbx jail: %s: %s\n", what, strerror(errno));
	_exit(125);
}

/*
 * The agent's filter. The default is allow: the jail's mounts and
 * namespaces do the confining; the filter takes away what they cannot:
 * connect() to Unix sockets that a read-only mount still lets through,
 * keystroke injection into the user's terminal, and kernel surfaces a
 * coding agent does not need (io_uring, mounts, new namespaces, bpf,
 * keyrings, perf, module and kexec loading). Syscalls of another
 * architecture (32-bit x86, x32) kill the process: libseccomp's default
 * for an arch the filter was not built for.
 */
static int
seccomp_jail(void)
{
	static const char *const eperm[] = {
		"unshare", "setns", "mount", "umount2", "pivot_root", "open_tree",
		"move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
		"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
		"kexec_load", "kexec_file_load", "init_module", "finit_module",
		"delete_module", "acct", "swapon", "swapoff", "reboot", "syslog", NULL,
	};
	static const char *const enosys[] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register",
		/* clone3's flags are in memory the filter cannot read: libc falls
		 * back to clone, whose flags it can. */
		"clone3", NULL,
	};
	/* Each namespace flag is one rule: the rules for one syscall are
	 * or-ed, and libseccomp has no "masked not equal". */
	static const unsigned long newns[] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET,
		CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, 0 };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int i, nr, rc = -1;

	if (!ctx)
		return -1;
	for (i = 0; eperm[i]; i++)
		if ((nr = seccomp_syscall_resolve_name(eperm[i])) != __NR_SCMP_ERROR &&
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) < 0)
			goto out;
	for (i = 0; enosys[i]; i++)
		if ((nr = seccomp_syscall_resolve_name(enosys[i])) != __NR_SCMP_ERROR &&
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) < 0)
			goto out;
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
	    SCMP_A0(SCMP_CMP_EQ, AF_UNIX)) < 0 ||
	    /* ioctl's request is an int to the kernel: compare its low 32 bits
	     * only, or a high bit set would slip past (as Flatpak does). */
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCLINUX)) < 0)
		goto out;
	for (i = 0; newns[i]; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, newns[i], newns[i])) < 0)
			goto out;
	rc = seccomp_load(ctx) < 0 ? -1 : 0;
out:
	seccomp_release(ctx);
	return rc;
}

/* In the child: never returns. */
static void
run_command(char **argv, int port, const char *no_proxy, const char *session,
    const sigset_t *old)
{
	char url[64];
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
		"http_proxy", "https_proxy", "all_proxy", NULL };
	int i;

	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
	if (port > 0) {
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
		for (i = 0; names[i]; i++)
			setenv(names[i], url, 1);
		setenv("NO_PROXY", no_proxy ? no_proxy : "", 1);
		setenv("no_proxy", no_proxy ? no_proxy : "", 1);
	} else {
		for (i = 0; names[i]; i++)
			unsetenv(names[i]);
	}
	closefrom(3);
	setenv("TMPDIR", "/tmp", 1);
	/* HOME is read-only: caches (pip, go, ...) go to the private /tmp. */
	if (!getenv("XDG_CACHE_HOME"))
		setenv("XDG_CACHE_HOME", "/tmp/.cache", 1);
	setenv("SBX_JAIL", "1", 1);
	if (session)
		setenv("SBX_JAIL_SESSION", session, 1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die_setup("no_new_privs");
	if (seccomp_jail() < 0)
		die_setup("cannot load the seccomp filter");
	execvp(argv[0], argv);
	fprintf(stderr, "sbx jail: %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static void
conn_close(size_t i)
{
	int k;

	for (k = 0; k < 2; k++) {
		close(conns[i].fd[k]);
		free(conns[i].buf[k]);
	}
	conns[i] = conns[--nconns];
}

static void
conn_accept(int lfd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct conn *c;
	int a, b;

	a = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (a < 0)
		return;
	if (nconns >= FWD_MAX_CONNS) {
		close(a);
		return;
	}
	memcpy(sa.sun_path, sock_path, sizeof(sa.sun_path));
	/* Non-blocking: a Unix connect completes at once or fails (EAGAIN
	 * when the proxy's backlog is full); it never stalls the others. */
	b = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (b < 0 || connect(b, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (b >= 0)
			close(b);
		close(a);
		return;
	}
	c = &conns[nconns];
	memset(c, 0, sizeof(*c));
	c->fd[0] = a;
	c->fd[1] = b;
	c->buf[0] = malloc(FWD_BUF);
	c->buf[1] = malloc(FWD_BUF);
	nconns++;
	if (!c->buf[0] || !c->buf[1])
		conn_close(nconns - 1);
}

/* Moves data for connection i after poll; returns 1 when it is done. */
static int
conn_step(struct conn *c, const short *rev)
{
	ssize_t r;
	int k;

	for (k = 0; k < 2; k++) {
		if (!c->eof[k] && c->len[k] == 0 && (rev[k] & (POLLIN | POLLHUP | POLLERR))) {
			r = read(c->fd[k], c->buf[k], FWD_BUF);
			if (r > 0) {
				c->len[k] = (size_t)r;
				c->off[k] = 0;
			} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
				if (r < 0)
					return 1;
				c->eof[k] = 1;
			}
		}
		if (c->len[k] > c->off[k]) {
			r = write(c->fd[!k], c->buf[k] + c->off[k], c->len[k] - c->off[k]);
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				return 1;
			if (r > 0)
				c->off[k] += (size_t)r;
			if (c->off[k] == c->len[k])
				c->len[k] = c->off[k] = 0;
		}
		if (c->eof[k] && c->len[k] == 0 && !c->shut[k]) {
			shutdown(c->fd[!k], SHUT_WR);
			c->shut[k] = 1;
		}
	}
	return c->shut[0] && c->shut[1];
}

static int
exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

int
main(int argc, char **argv)
{
	const char *socket_arg = NULL, *no_proxy = NULL, *session = NULL;
	struct pollfd *pfd = NULL;
	struct signalfd_siginfo si;
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	sigset_t mask, old;
	int i, lfd = -1, sfd, port = 0, status;
	size_t k, n;
	pid_t child, pid;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--") ) {
			i++;
			break;
		}
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--socket"))
			socket_arg = argv[++i];
		else if (!strcmp(argv[i], "--no-proxy"))
			no_proxy = argv[++i];
		else if (!strcmp(argv[i], "--session"))
			session = argv[++i];
		else
			goto usage;
	}
	if (i >= argc)
		goto usage;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die_setup("cannot make the forwarder non-dumpable");
	if (socket_arg) {
		if (strlen(socket_arg) >= sizeof(sock_path)) {
			errno = ENAMETOOLONG;
			die_setup(socket_arg);
		}
		memcpy(sock_path, socket_arg, strlen(socket_arg) + 1);
		lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    listen(lfd, 128) < 0 ||
		    getsockname(lfd, (struct sockaddr *)&sin, &slen) < 0)
			die_setup("cannot listen on 127.0.0.1 in the jail");
		port = ntohs(sin.sin_port);
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	if ((sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		die_setup("signalfd");
	/* Terminal signals reach COMMAND; the forwarder waits for it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	child = fork();
	if (child < 0)
		die_setup("fork");
	if (child == 0)
		run_command(argv + i, port, no_proxy, session, &old);
	if (!(pfd = calloc(FWD_MAX_CONNS * 2 + 2, sizeof(*pfd))))
		die_setup("out of memory");
	for (;;) {
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = lfd >= 0 && nconns < FWD_MAX_CONNS ? lfd : -1,
			.events = POLLIN };
		for (k = 0; k < nconns; k++) {
			struct conn *c = &conns[k];
			int d;

			for (d = 0; d < 2; d++) {
				short ev = 0;

				if (!c->eof[d] && c->len[d] == 0)
					ev |= POLLIN;
				if (c->len[!d] > c->off[!d])
					ev |= POLLOUT;
				pfd[n++] = (struct pollfd){ .fd = c->fd[d], .events = ev };
			}
		}
		if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR)
			die_setup("poll");
		if (pfd[0].revents) {
			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo != SIGCHLD)
					kill(child, (int)si.ssi_signo);
			}
			/* As the jail's pid 1, reap every orphan too. */
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
				if (pid != child)
					continue;
				while (nconns > 0)
					conn_close(nconns - 1);
				free(pfd);
				return exit_code(status);
			}
		}
		/* Connections first (their pfd slots match conns[] as polled),
		 * then new ones. */
		for (k = nconns; k-- > 0;) {
			short rev[2] = { pfd[2 + 2 * k].revents, pfd[3 + 2 * k].revents };

			if (conn_step(&conns[k], rev))
				conn_close(k);
		}
		if (pfd[1].revents & POLLIN)
			conn_accept(lfd);
	}
usage:
	fprintf(stderr, "usage: sbx-jail-init [--socket PATH [--no-proxy LIST]] "
	    "[--session ID] -- COMMAND [ARG...]\n");
	return 125;
}
