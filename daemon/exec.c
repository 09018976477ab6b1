/*
 * exec.c - the executor; see exec.h.
 *
 * MUST run the command in its own process group and kill the whole
 * group on timeout and on interruption. MUST NOT let the command
 * inherit the daemon's descriptors (locks, database, inotify).
 * MUST write the result by atomic rename, never in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/wake.h"
#include "common/redact/redact.h"
#include "common/trust/result_sig.h"
#include "daemon/exec.h"

#define KILL_GRACE_MS   5000
#define DRAIN_MS        300     /* after the shell exits, for late output */

static volatile sig_atomic_t stop_requested;

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static cJSON *
result_base(const char *id, const char *hash, const char *status,
    const char *approver, const char *reason)
{
	cJSON *r = cJSON_CreateObject();

	if (!r)
		return NULL;
	cJSON_AddNumberToObject(r, "v", 1);
	cJSON_AddStringToObject(r, "id", id);
	cJSON_AddStringToObject(r, "hash", hash);
	cJSON_AddStringToObject(r, "status", status);
	cJSON_AddStringToObject(r, "approver", approver ? approver : "");
	cJSON_AddStringToObject(r, "reason", reason ? reason : "");
	cJSON_AddNumberToObject(r, "finished", (double)(now_ms() / 1000));
	return r;
}

/* sbxd's key: every result is signed (common/trust/result_sig.h). */
static unsigned char result_sk[64];
static int have_result_sk;

void
exec_set_result_key(const unsigned char sk[64])
{
	memcpy(result_sk, sk, sizeof(result_sk));
	have_result_sk = 1;
}

/*
 * A result already there that sbxd did not sign was put there by someone
 * else (forged, for a request still pending): moved to rejected/, said on
 * stderr, and replaced by the real one. 1 when it was moved.
 */
static int
result_move_forged(int sbfd, const char *id, const char *dst)
{
	unsigned char pk[32];
	char to[96], *text;
	struct sbx_err err;
	cJSON *doc = NULL;
	size_t len;
	int ours;

	if (!have_result_sk)
		return 0;
	crypto_sign_ed25519_sk_to_pk(pk, result_sk);
	if ((text = read_daemon_file(sbfd, dst, SBX_MAX_RESULT, &len, &err)))
		doc = cJSON_ParseWithLength(text, len);
	free(text);
	/* Ours: signed by sbxd, and for this request (a signed result of
	 * another request copied here is a forgery too). */
	ours = doc && result_sig_ok(doc, pk) && json_str(doc, "id") &&
	    strcmp(json_str(doc, "id"), id) == 0;
	cJSON_Delete(doc);
	if (ours)
		return 0;
	snprintf(to, sizeof(to), "rejected/%lld-%s.json.forged", (long long)now_ms(), id);
	if (renameat_nf(sbfd, dst, to, 0) < 0)
		return 0;
	fprintf(stderr, "sbxd: request %s: TAMPERING: a result sbxd did not write was in "
	    "results/; moved to .sandbox/%s and replaced by the real one\n", id, to);
	return 1;
}

static int64_t result_failures;

int64_t
exec_result_failures(void)
{
	return result_failures;
}

/* DEFER: no fsync and no wake; the caller makes the batch durable
 * (request.c, sync_results) and then wakes each request (wake_poke). */
static int
result_write_how(int sbfd, const char *id, cJSON *r, int defer)
{
	int wa = WA_NOREPLACE | (defer ? WA_NOSYNC : 0);
	char dst[SBX_QUEUE_PATH_MAX], *text;
	int rc;

	if ((have_result_sk && result_sig_add(r, result_sk) < 0) ||
	    !(text = json_print_line(r))) {
		result_failures++;
		return -1;
	}
	snprintf(dst, sizeof(dst), "%s", queue_path(QP_RESULT, id).s);
	/* noreplace: a result, once written, is final. */
	rc = write_atomic(sbfd, "work", dst, text, strlen(text), 0644, wa);
	if (rc < 0 && errno == EEXIST && result_move_forged(sbfd, id, dst))
		rc = write_atomic(sbfd, "work", dst, text, strlen(text), 0644, wa);
	/* Not written (full disk, I/O error): sbxd retries from state.db. */
	if (rc < 0 && errno != EEXIST)
		result_failures++;
	free(text);
	/* Durable and signed: now wake the hook waiting for it. */
	if (rc == 0 && !defer)
		wake_poke(sbfd, id);
	return rc;
}

static int
result_write(int sbfd, const char *id, cJSON *r)
{
	return result_write_how(sbfd, id, r, 0);
}

static int
status_write(int sbfd, const char *id, const char *hash, const char *status,
    const char *approver, const char *reason, int defer)
{
	cJSON *r = result_base(id, hash, status, approver, reason);
	int rc;

	if (!r)
		return -1;
	rc = result_write_how(sbfd, id, r, defer);
	cJSON_Delete(r);
	return rc;
}

int
result_write_status(int sbfd, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason)
{
	return status_write(sbfd, id, hash, status, approver, reason, 0);
}

int
result_write_status_deferred(int sbfd, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason)
{
	return status_write(sbfd, id, hash, status, approver, reason, 1);
}

struct stream {
	const char *name;           /* "stdout" / "stderr" */
	int fd;                     /* pipe read end, -1 at EOF */
	int out;                    /* capture file */
	long long total, kept;
	char head[SBX_RESULT_HEAD];
	size_t head_len;
	crypto_generichash_state hash;
};

static void
stream_read(struct stream *s, long cap)
{
	char buf[16384];
	ssize_t r = read(s->fd, buf, sizeof(buf));
	size_t n, room;

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		close(s->fd);
		s->fd = -1;
		return;
	}
	n = (size_t)r;
	s->total += (long long)n;
	crypto_generichash_update(&s->hash, (unsigned char *)buf, n);
	if (s->head_len < sizeof(s->head)) {
		room = sizeof(s->head) - s->head_len;
		memcpy(s->head + s->head_len, buf, n < room ? n : room);
		s->head_len += n < room ? n : room;
	}
	if (s->kept < cap) {
		room = (size_t)(cap - s->kept);
		if (s->out >= 0 && write_all(s->out, buf, n < room ? n : room) == 0)
			s->kept += (long long)(n < room ? n : room);
	}
}

static void
stream_result(struct stream *s, cJSON *r)
{
	unsigned char h[32];
	char hex[65], key[32];
	char *text, *scrubbed;
	int redactions = 0;

	crypto_generichash_final(&s->hash, h, sizeof(h));
	hex_encode(hex, h, sizeof(h));
	text = utf8_clean(s->head, s->head_len, s->head_len * 3 + 3, NULL);
	/* The head is what the model gets back: no secrets in it. */
	scrubbed = text ? redact_str(text, &redactions) : NULL;
	cJSON_AddStringToObject(r, s->name, scrubbed ? scrubbed : "");
	free(scrubbed);
	free(text);
	snprintf(key, sizeof(key), "%s_redactions", s->name);
	cJSON_AddNumberToObject(r, key, redactions);
	snprintf(key, sizeof(key), "%s_bytes", s->name);
	cJSON_AddNumberToObject(r, key, (double)s->total);
	snprintf(key, sizeof(key), "%s_kept", s->name);
	cJSON_AddNumberToObject(r, key, (double)s->kept);
	snprintf(key, sizeof(key), "%s_truncated", s->name);
	cJSON_AddBoolToObject(r, key, (long long)s->head_len < s->total);
	snprintf(key, sizeof(key), "%s_blake2b", s->name);
	cJSON_AddStringToObject(r, key, hex);
}

/*
 * The command's environment: the clean one sbxd built, plus
 * SBX_REQUEST_ID=ID (any passed-through SBX_REQUEST_ID is replaced). In
 * the child, after fork: sbxd is single-threaded, so malloc is safe.
 * NULL when out of memory.
 */
static char **
child_env(const struct exec_spec *s)
{
	static const char var[] = "SBX_REQUEST_ID=";
	char **env, *idv;
	size_t n = 0, k, o = 0;

	while (s->env && s->env[n])
		n++;
	if (!(env = calloc(n + 2, sizeof(*env))) ||
	    !(idv = malloc(sizeof(var) + strlen(s->id))))
		return NULL;
	memcpy(idv, var, sizeof(var) - 1);
	memcpy(idv + sizeof(var) - 1, s->id, strlen(s->id) + 1);
	for (k = 0; k < n; k++)
		if (strncmp(s->env[k], var, sizeof(var) - 1) != 0)
			env[o++] = s->env[k];
	env[o++] = idv;
	env[o] = NULL;
	return env;
}

/* Tasks (threads included, as RLIMIT_NPROC counts them) of our real uid. */
static long
user_tasks(void)
{
	char path[64];
	struct dirent *e, *t;
	struct stat st;
	long n = 0;
	DIR *d, *td;

	if (!(d = opendir("/proc")))
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s", e->d_name);
		if (stat(path, &st) < 0 || st.st_uid != getuid())
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/task", e->d_name);
		if (!(td = opendir(path)))
			continue;
		while ((t = readdir(td)))
			n += t->d_name[0] != '.';
		closedir(td);
	}
	closedir(d);
	return n;
}

/*
 * A pids cgroup for one run: cgroup v2 (our own cgroup's parent must
 * delegate "pids") or v1's pids hierarchy. 0 with dir filled, or -1
 * when sbxd may not make one (then only RLIMIT_NPROC bounds processes).
 */
static int
cgroup_make(const char *id, int max, char *dir, size_t dirsz)
{
	static const char *const bases[] = { "/sys/fs/cgroup/pids", "/sys/fs/cgroup",
		"/sys/fs/cgroup/unified", NULL };
	char path[PATH_MAX], num[32];
	int i, fd, len;

	for (i = 0; bases[i]; i++) {
		if (xsnprintf(path, sizeof(path), "%s/pids.max", bases[i]) < 0)
			continue;
		/* v1 root has no pids.max; accept a hierarchy with cgroup.procs
		 * whose children get pids.max. */
		if (xsnprintf(path, sizeof(path), "%s/cgroup.procs", bases[i]) < 0 ||
		    access(path, W_OK) < 0)
			continue;
		if (xsnprintf(dir, dirsz, "%s/sbx-%s", bases[i], id) < 0)
			continue;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			continue;
		if (xsnprintf(path, sizeof(path), "%s/pids.max", dir) < 0 ||
		    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
			rmdir(dir);
			continue;
		}
		len = snprintf(num, sizeof(num), "%d", max);
		if (write(fd, num, (size_t)len) != len) {
			close(fd);
			rmdir(dir);
			continue;
		}
		close(fd);
		return 0;
	}
	dir[0] = '\0';
	return -1;
}

/* Kills what is left in the run's cgroup and removes it. */
static void
cgroup_drop(const char *dir)
{
	char path[PATH_MAX], buf[4096], *p;
	ssize_t n;
	int fd, tries;

	if (!*dir || xsnprintf(path, sizeof(path), "%s/cgroup.procs", dir) < 0)
		return;
	for (tries = 0; tries < 100; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			buf[n > 0 ? n : 0] = '\0';
			for (p = buf; *p; p += strcspn(p, "\n"), p += *p == '\n')
				if (atol(p) > 0)
					kill((pid_t)atol(p), SIGKILL);
		}
		usleep(10000);
	}
}

/* In the command's child, before exec: the run's resource limits. */
static int
apply_limits(const struct exec_spec *s, const char *cgdir, long tasks)
{
	struct rlimit rl;
	char path[PATH_MAX];
	int fd;

	if (*cgdir) {
		if (xsnprintf(path, sizeof(path), "%s/cgroup.procs", cgdir) < 0 ||
		    (fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			return -1;
		if (write(fd, "0", 1) != 1) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	if (s->cpu_s > 0) {
		rl.rlim_cur = (rlim_t)s->cpu_s;
		rl.rlim_max = (rlim_t)s->cpu_s + 5;
		if (setrlimit(RLIMIT_CPU, &rl) < 0)
			return -1;
	}
	if (s->mem_bytes > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)s->mem_bytes;
		if (setrlimit(RLIMIT_DATA, &rl) < 0)
			return -1;
	}
	if (s->max_procs > 0 && tasks >= 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)(tasks + s->max_procs);
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			return -1;
	}
	return 0;
}

/* In the command's child: never returns. */
static void
run_child(const struct exec_spec *s, int out_w, int err_w, const char *cgdir, long tasks)
{
	char **env;
	sigset_t none;
	int fd;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
		_exit(126);
	closefrom(3);
	if (chdir(s->cwd) < 0) {
		dprintf(2, "sbxd: cannot enter %s: %s\n", s->cwd, strerror(errno));
		_exit(126);
	}
	if (!(env = child_env(s))) {
		dprintf(2, "sbxd: out of memory\n");
		_exit(126);
	}
	/* Last before exec: nothing of sbxd allocates under the memory limit
	 * (a sanitizer build's runtime would fail to map its own memory). */
	if (apply_limits(s, cgdir, tasks) < 0) {
		dprintf(2, "sbxd: cannot apply the resource limits: %s\n", strerror(errno));
		_exit(126);
	}
	execle("/bin/sh", "sh", "-c", s->command, (char *)NULL, env);
	dprintf(2, "sbxd: cannot run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/* work/ID.NAME while it runs, results/ID.NAME once published (NAME
 * stdout or stderr). */
static struct queue_path
capture_path(const char *id, const char *name, int published)
{
	int err = strcmp(name, "stderr") == 0;

	return queue_path(published ? (err ? QP_STDERR : QP_STDOUT) :
	    (err ? QP_WORK_STDERR : QP_WORK_STDOUT), id);
}

static int
open_capture(int sbfd, const char *id, const char *name)
{
	char path[SBX_QUEUE_PATH_MAX];

	snprintf(path, sizeof(path), "%s", capture_path(id, name, 0).s);
	(void)unlinkat_nf(sbfd, path, 0);
	return openat_nf(sbfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

static void
publish_capture(int sbfd, const char *id, const char *name, int fd, long long kept)
{
	char from[SBX_QUEUE_PATH_MAX], to[SBX_QUEUE_PATH_MAX];

	if (fd < 0)
		return;
	/* Only data needs an fsync of its own: the creation and rename of
	 * an empty capture become durable with the result's directory
	 * fsync, which follows. */
	if (kept > 0)
		(void)fsync(fd);
	close(fd);
	snprintf(from, sizeof(from), "%s", capture_path(id, name, 0).s);
	snprintf(to, sizeof(to), "%s", capture_path(id, name, 1).s);
	(void)renameat_nf(sbfd, from, to, 0);
}

/* The result of a run that ended with status (waitpid), before its
 * streams are added; NULL when out of memory. */
static cJSON *
result_final(const struct exec_spec *s, int status, int timed_out, int64_t t0)
{
	cJSON *r;

	r = result_base(s->id, s->hash, req_status_name(stop_requested ? REQ_INTERRUPTED : REQ_DONE),
	    s->approver, stop_requested ? "sbxd stopped while the command ran" : "");
	if (!r)
		return NULL;
	cJSON_AddStringToObject(r, "tool", s->tool);
	cJSON_AddStringToObject(r, "command", s->command);
	cJSON_AddStringToObject(r, "cwd", s->cwd);
	cJSON_AddBoolToObject(r, "auto", s->is_auto);
	if (WIFEXITED(status)) {
		cJSON_AddNumberToObject(r, "exit_code", WEXITSTATUS(status));
		cJSON_AddNumberToObject(r, "signal", 0);
	} else {
		cJSON_AddNullToObject(r, "exit_code");
		cJSON_AddNumberToObject(r, "signal", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	cJSON_AddBoolToObject(r, "timed_out", timed_out);
	{
		/* CPU time of the command and every child it waited for: the
		 * shell's own status hides a killed child (exit 128+SIGXCPU). */
		struct rusage ru;
		int64_t cpu_ms = 0;

		if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
			cpu_ms = (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		cJSON_AddNumberToObject(r, "cpu_ms", (double)cpu_ms);
		/* SIGXCPU (or a shell reporting 128+SIGXCPU) comes from the
		 * limit; a SIGKILL does when the CPU time reached it (rusage and
		 * the kernel's tick accounting differ a little: 80 % will do). */
		if (s->cpu_s > 0 && !timed_out && !stop_requested &&
		    ((WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) ||
		    (WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGXCPU) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		    cpu_ms * 5 >= (int64_t)s->cpu_s * 4000)))
			cJSON_AddStringToObject(r, "limit", "cpu");
	}
	cJSON_AddNumberToObject(r, "duration_ms", (double)(mono_ms() - t0));
	return r;
}

/* The executor on its own: sbxd's locks closed, a session of its own,
 * stopped by SIGTERM/SIGINT/SIGHUP or sbxd's death. */
static void
executor_detach(const struct exec_spec *s, pid_t daemon)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t none;
	int i;

	for (i = 0; i < s->n_close_fds; i++)
		close(s->close_fds[i]);
	setsid();
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != daemon)
		stop_requested = 1;
}

/* The executor process: never returns. */
static void
executor(const struct exec_spec *s, pid_t daemon)
{
	struct stream st[2] = { { .name = "stdout" }, { .name = "stderr" } };
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 }, i, status = 0, n;
	int timed_out = 0, exited = 0, pidfd;
	int64_t t0, deadline, kill_at = 0, drain_at = 0, now;
	struct pollfd pfd[3];
	char cgdir[PATH_MAX] = "";
	long tasks = -1;
	pid_t pid;
	cJSON *r;

	executor_detach(s, daemon);

	for (i = 0; i < 2; i++) {
		crypto_generichash_init(&st[i].hash, NULL, 0, 32);
		st[i].out = open_capture(s->sbfd, s->id, st[i].name);
	}
	if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		result_write_status(s->sbfd, s->id, s->hash, req_status_name(REQ_INTERRUPTED), s->approver,
		    "sbxd could not create pipes");
		_exit(1);
	}
	t0 = mono_ms();
	deadline = t0 + (int64_t)s->timeout_s * 1000;
	if (s->max_procs > 0) {
		if (cgroup_make(s->id, s->max_procs, cgdir, sizeof(cgdir)) < 0)
			cgdir[0] = '\0';
		tasks = geteuid() == 0 ? -1 : user_tasks();
	}
	pid = stop_requested ? -1 : fork();
	if (pid == 0)
		run_child(s, op[1], ep[1], cgdir, tasks);
	close(op[1]);
	close(ep[1]);
	st[0].fd = op[0];
	st[1].fd = ep[0];
	if (pid < 0) {
		result_write_status(s->sbfd, s->id, s->hash, req_status_name(REQ_INTERRUPTED), s->approver,
		    stop_requested ? "sbxd stopped before the command started"
		    : "sbxd could not start the command");
		_exit(1);
	}
	setpgid(pid, pid);
	/* A pidfd wakes the poll below when the shell exits (Linux >= 5.3);
	 * without one, the 50 ms poll timeout notices it. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	while (!exited || st[0].fd >= 0 || st[1].fd >= 0) {
		now = mono_ms();
		if (stop_requested && !kill_at) {
			kill(-pid, SIGKILL);
			kill_at = now;
		}
		if (!timed_out && now >= deadline) {
			timed_out = 1;
			kill(-pid, SIGTERM);
			kill_at = now + KILL_GRACE_MS;
		}
		if (kill_at && now >= kill_at)
			kill(-pid, SIGKILL);
		if (!exited && waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			drain_at = now + DRAIN_MS;
		}
		if (exited && st[0].fd < 0 && st[1].fd < 0)
			break;
		/* Background jobs may hold the pipes open after the shell has
		 * exited: stop reading after a short drain and kill the group. */
		if (exited && now >= drain_at) {
			kill(-pid, SIGKILL);
			for (i = 0; i < 2; i++) {
				while (st[i].fd >= 0 && poll(&(struct pollfd){ st[i].fd, POLLIN, 0 },
				    1, 0) > 0)
					stream_read(&st[i], s->cap);
				if (st[i].fd >= 0) {
					close(st[i].fd);
					st[i].fd = -1;
				}
			}
			break;
		}
		for (n = 0, i = 0; i < 2; i++)
			if (st[i].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = st[i].fd, .events = POLLIN };
		if (pidfd >= 0 && !exited)
			pfd[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, 50) > 0) {
			for (i = 0; i < 2; i++) {
				int k;

				for (k = 0; k < n; k++)
					if (st[i].fd >= 0 && pfd[k].fd == st[i].fd && pfd[k].revents)
						stream_read(&st[i], s->cap);
			}
		}
	}
	if (!exited)
		waitpid(pid, &status, 0);
	kill(-pid, SIGKILL);
	cgroup_drop(cgdir);
	if (pidfd >= 0)
		close(pidfd);

	for (i = 0; i < 2; i++)
		publish_capture(s->sbfd, s->id, st[i].name, st[i].out, st[i].kept);
	if (!(r = result_final(s, status, timed_out, t0)))
		_exit(1);
	for (i = 0; i < 2; i++)
		stream_result(&st[i], r);
	_exit(result_write(s->sbfd, s->id, r) == 0 ? 0 : 1);
}

pid_t
exec_start(const struct exec_spec *s)
{
	pid_t daemon = getpid(), pid;

	pid = fork();
	if (pid == 0)
		executor(s, daemon);
	return pid;
}

/* Adds the head of what was captured of each stream (results/ID.NAME,
 * else work/ID.NAME) to r, so a result written after a fault keeps the
 * output that exists. */
static void
result_add_kept(int sbfd, const char *id, cJSON *r)
{
	static const char *const names[] = { "stdout", "stderr" };
	char path[SBX_QUEUE_PATH_MAX], key[32], *buf, *text;
	struct stat st;
	ssize_t n;
	int i, fd;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s", capture_path(id, names[i], 1).s);
		fd = openat_nf(sbfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
		if (fd < 0) {
			snprintf(path, sizeof(path), "%s", capture_path(id, names[i], 0).s);
			fd = openat_nf(sbfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
		}
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(buf = malloc(SBX_RESULT_HEAD))) {
			close(fd);
			continue;
		}
		n = read(fd, buf, SBX_RESULT_HEAD);
		close(fd);
		text = n > 0 ? utf8_clean(buf, (size_t)n, (size_t)n * 3 + 3, NULL) : NULL;
		free(buf);
		cJSON_AddStringToObject(r, names[i], text ? text : "");
		free(text);
		snprintf(key, sizeof(key), "%s_bytes", names[i]);
		cJSON_AddNumberToObject(r, key, (double)st.st_size);
		snprintf(key, sizeof(key), "%s_truncated", names[i]);
		cJSON_AddBoolToObject(r, key, n < 0 || st.st_size > n);
	}
}

int
result_write_recovered(int sbfd, const char *id, const char *hash, const char *status,
    const char *approver, const char *reason, int64_t exit_code, int64_t sig)
{
	cJSON *r = result_base(id, hash, status, approver, reason);
	int rc;

	if (!r)
		return -1;
	cJSON_AddBoolToObject(r, "recovered", 1);
	if (exit_code >= 0)
		cJSON_AddNumberToObject(r, "exit_code", (double)exit_code);
	else
		cJSON_AddNullToObject(r, "exit_code");
	cJSON_AddNumberToObject(r, "signal", (double)sig);
	result_add_kept(sbfd, id, r);
	rc = result_write(sbfd, id, r);
	cJSON_Delete(r);
	return rc;
}
