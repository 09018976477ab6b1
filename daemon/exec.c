/*
 * exec.c - the executor; see exec.h.
 *
 * MUST run the command in its own process group and kill the whole
 * group on timeout and on interruption. MUST NOT let the command
 * inherit the daemon's descriptors (locks, database, inotify).
 * MUST make the result appear whole, by atomic rename or by a link of a
 * file written before it (never written in place under its name).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "common/protocol/wake.h"
#include "common/redact/redact.h"
#include "common/trust/result_sig.h"
#include "daemon/cgroup.h"
#include "daemon/exec.h"
#include "daemon/handoff.h"

#define KILL_GRACE_MS   5000
#define DRAIN_MS        300     /* after the shell exits, for late output */

static volatile sig_atomic_t stop_requested;

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* A spare executor's SIGCHLD: only wakes its poll. */
static void
on_child(int sig)
{
	(void)sig;
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

/* Links the unnamed file FD (O_TMPFILE, made ahead) to DIRFD/PATH, its
 * parent opened without following a symlink: fails with EEXIST when the
 * name exists, as RENAME_NOREPLACE does. The parent (caller closes) or
 * -1 (errno set); *base points at PATH's last component. */
static int
link_fd(int fd, int dirfd, const char *path, const char **base)
{
	int dfd, e;

	if ((dfd = at_parent(dirfd, path, base)) < 0)
		return -1;
	if (link_fd_at(fd, dfd, *base) == 0)
		return dfd;
	e = errno;
	close(dfd);
	errno = e;
	return -1;
}

/*
 * Publishes TEXT as results/ID.json through FD, a file made ahead
 * (premade_make): written whole, linked to the name (never replacing
 * one), then the file and results/ synced, before anyone is woken. No
 * inode is allocated here. -1 with errno EEXIST when the name is taken,
 * another errno when the link cannot be made at all (no /proc, another
 * filesystem): the caller writes it the usual way then.
 */
static int
result_link(int sbfd, const char *dst, int fd, const char *text, size_t len)
{
	const char *base;
	int dfd, e;

	/* The file is the executor's own and unnamed; cut to the text all
	 * the same. */
	if (pwrite(fd, text, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) < 0)
		return -1;
	if ((dfd = link_fd(fd, sbfd, dst, &base)) < 0)
		return -1;
	/* After the link, so that its inode is written with its one link
	 * (a file system without a journal writes nothing else for it),
	 * then the name: the same two syncs as a rename's. A result that
	 * cannot be made durable is taken back. */
	if (fsync(fd) < 0) {
		e = errno;
		(void)unlinkat(dfd, base, 0);
		close(dfd);
		errno = e == EEXIST ? EIO : e;
		return -1;
	}
	(void)fsync(dfd);
	close(dfd);
	return 0;
}

/* DEFER: no fsync and no wake; the caller makes the batch durable
 * (request.c, sync_results) and then wakes each request (wake_poke).
 * PREMADE: a file made ahead to publish it through (result_link), -1
 * for none; closed here. */
static int
result_write_how(int sbfd, const char *id, cJSON *r, int defer, int premade)
{
	int wa = WA_NOREPLACE | (defer ? WA_NOSYNC : 0);
	char dst[SBX_QUEUE_PATH_MAX], *text;
	int rc = -1, e;

	if ((have_result_sk && result_sig_add(r, result_sk) < 0) ||
	    !(text = json_print_line(r))) {
		if (premade >= 0)
			close(premade);
		result_failures++;
		return -1;
	}
	snprintf(dst, sizeof(dst), "%s", queue_path(QP_RESULT, id).s);
	if (premade >= 0) {
		rc = result_link(sbfd, dst, premade, text, strlen(text));
		if (rc < 0 && errno == EEXIST && result_move_forged(sbfd, id, dst))
			rc = result_link(sbfd, dst, premade, text, strlen(text));
		e = errno;
		close(premade);
		errno = e;
	}
	/* noreplace: a result, once written, is final. */
	if (premade < 0 || (rc < 0 && errno != EEXIST))
		rc = write_atomic(sbfd, "work", dst, text, strlen(text), 0644, wa);
	else if (rc < 0)
		goto out;       /* ours is there already, or a forgery that stays */
	if (rc < 0 && errno == EEXIST && result_move_forged(sbfd, id, dst))
		rc = write_atomic(sbfd, "work", dst, text, strlen(text), 0644, wa);
out:
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
	return result_write_how(sbfd, id, r, 0, -1);
}

static int
status_write(int sbfd, const char *id, const char *hash, const char *status,
    const char *approver, const char *reason, int defer)
{
	cJSON *r = result_base(id, hash, status, approver, reason);
	int rc;

	if (!r)
		return -1;
	rc = result_write_how(sbfd, id, r, defer, -1);
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

/* In the command's child, before exec: the run's resource limits. */
static int
apply_limits(const struct exec_spec *s, const char *cgdir, long tasks)
{
	struct rlimit rl;

	if (*cgdir && cgroup_join(cgdir) < 0)
		return -1;
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

/* The command's child, first half (a spare's child does it ahead of
 * time): its own process group, default signals. */
static void
child_prepare(void)
{
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

/* The command's child, second half: joins cgdir (unless empty: no
 * cgroup, or already in it), then execs the command. Never returns. */
static void
child_exec(const struct exec_spec *s, int out_w, int err_w, const char *cgdir, long tasks)
{
	char **env;
	int fd;

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

/*
 * The files of a run made ahead by a spare executor, while it waits:
 * ID.stdout, ID.stderr and the result, each an unnamed file (O_TMPFILE)
 * of the folder's work/, with the modes the run would give them. The run
 * then writes and links them (link_fd): no inode is allocated between
 * sbxd's claim of a request and the hook's wake (on ext4 without a
 * journal an allocation walks every inode freed in the last minutes:
 * 10 us to 1 ms). Unnamed, they are reachable only through the spare's
 * descriptors (not dumpable: not through /proc); a spare that dies
 * leaves nothing behind. Made for the folder of sbxd's last run (the
 * next one is most often there too); a run of another folder makes its
 * files as a direct run does.
 */
enum { PM_STDOUT, PM_STDERR, PM_RESULT, PM_N };
struct premade {
	dev_t dev;                  /* the .sandbox they were made for */
	ino_t ino;
	int fd[PM_N];               /* -1: none */
};

static void
premade_close(struct premade *pm)
{
	int i;

	for (i = 0; i < PM_N; i++) {
		if (pm->fd[i] >= 0)
			close(pm->fd[i]);
		pm->fd[i] = -1;
	}
}

/* Makes pm's files in SBFD's work/ (none where O_TMPFILE is refused). */
static void
premade_make(struct premade *pm, int sbfd)
{
	const char *base;
	struct stat st;
	int i, wfd;

	for (i = 0; i < PM_N; i++)
		pm->fd[i] = -1;
	if (sbfd < 0 || fstat(sbfd, &st) < 0 ||
	    (wfd = at_parent(sbfd, queue_path(QP_WORK_STDOUT, "0000000000000000").s, &base)) < 0)
		return;
	pm->dev = st.st_dev;
	pm->ino = st.st_ino;
	/* Their modes are exact, whatever sbxd's umask, as write_atomic
	 * makes the result's (the agent's user reads them: deployment 3). */
	for (i = 0; i < PM_N; i++)
		if ((pm->fd[i] = openat(wfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644)) < 0 ||
		    fd_mode_exact(pm->fd[i], 0644) < 0)
			break;
	if (i < PM_N)
		premade_close(pm);
	close(wfd);
}

/* pm's files, when they were made for SBFD; else they go. 1 or 0. */
static int
premade_fits(struct premade *pm, int sbfd)
{
	struct stat st;

	if (pm->fd[0] >= 0 && fstat(sbfd, &st) == 0 && st.st_dev == pm->dev &&
	    st.st_ino == pm->ino)
		return 1;
	premade_close(pm);
	return 0;
}

/* work/ID.NAME for a run: the file made ahead (PFD, linked to its name)
 * when there is one, else a new one. Either way a name the run had
 * before is removed first. */
static int
open_capture(int sbfd, const char *id, const char *name, int pfd)
{
	char path[SBX_QUEUE_PATH_MAX];
	const char *base;
	int dfd;

	snprintf(path, sizeof(path), "%s", capture_path(id, name, 0).s);
	(void)unlinkat_nf(sbfd, path, 0);
	if (pfd >= 0) {
		if ((dfd = link_fd(pfd, sbfd, path, &base)) >= 0) {
			close(dfd);
			return pfd;
		}
		close(pfd);
	}
	/* 0644 whatever sbxd's umask, as the result (open_capture's files
	 * made ahead too): in a handed-over folder the agent's user reads
	 * them. */
	if ((pfd = openat_nf(sbfd, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) >= 0 &&
	    fd_mode_exact(pfd, 0644) < 0) {
		close(pfd);
		pfd = -1;
	}
	return pfd;
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

/* The command's child, as its executor sees it. */
struct child {
	pid_t pid;
	int out_r, err_r;           /* the read ends of its stdout and stderr */
	char cgdir[PATH_MAX];       /* its cgroup; "" without one */
	int inside;                 /* the executor is in cgdir too (a spare's) */
	struct premade pm;          /* the run's files made ahead, or none */
};

/* The executor on its own: the descriptors it must not hold closed, a
 * session of its own, stopped by SIGTERM/SIGINT/SIGHUP or sbxd's death.
 * Not dumpable: a command of the same user can neither ptrace it nor
 * read or write its memory (/proc/PID/mem) to change what it runs. */
static void
executor_detach(const int *close_fds, int n_close_fds, pid_t daemon)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t none;
	int i;

	for (i = 0; i < n_close_fds; i++)
		close(close_fds[i]);
	prctl(PR_SET_DUMPABLE, 0);
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

/* The name of a direct run's cgroup: sbxd's pid (cgroup_sweep leaves
 * the cgroups of a live sbxd alone) and the request. */
static void
run_cgroup_name(char *name, size_t size, pid_t daemon, const char *id)
{
	snprintf(name, size, "run-%ld-%s", (long)daemon, id);
}

/*
 * Starts the command's child the direct way: pipes, a pids cgroup of
 * its own when the run has a process limit and sbxd may make one (the
 * child moves into it, or starts in it on cgroup v2), then the child.
 * Fail closed: where sbxd may make cgroups, a run with a process limit
 * that cannot have its own is not started (RLIMIT_NPROC does not bind
 * root); only where there is no pids cgroup at all (said at start,
 * exec_cgroups_init) does RLIMIT_NPROC alone limit it.
 * 0, or -1 with why (nothing started, nothing left).
 */
static int
child_start(const struct exec_spec *s, struct child *c, pid_t daemon, const char **why)
{
	static char msg[256];
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 }, joined = 0, e;
	char name[64];
	long tasks = -1;

	c->cgdir[0] = '\0';
	c->inside = 0;
	if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		if (op[0] >= 0) {
			close(op[0]);
			close(op[1]);
		}
		*why = "sbxd could not create pipes";
		return -1;
	}
	if (s->max_procs > 0) {
		run_cgroup_name(name, sizeof(name), daemon, s->id);
		if (cgroup_make(name, s->max_procs, c->cgdir, sizeof(c->cgdir)) < 0) {
			e = errno;
			c->cgdir[0] = '\0';
			if (cgroup_available()) {
				snprintf(msg, sizeof(msg), "sbxd could not make the pids cgroup that "
				    "limits its processes (exec_max_processes) (sbx-%s: %s), so it "
				    "was not started", name, strerror(e));
				fprintf(stderr, "sbxd: request %s: %s\n", s->id, msg);
				close(op[0]);
				close(op[1]);
				close(ep[0]);
				close(ep[1]);
				*why = msg;
				return -1;
			}
		}
		tasks = geteuid() == 0 ? -1 : user_tasks();
	}
	c->pid = stop_requested ? -1 : cgroup_fork(c->cgdir, &joined);
	if (c->pid == 0) {
		child_prepare();
		child_exec(s, op[1], ep[1], joined ? "" : c->cgdir, tasks);
	}
	close(op[1]);
	close(ep[1]);
	c->out_r = op[0];
	c->err_r = ep[0];
	if (c->pid < 0) {
		close(op[0]);
		close(ep[0]);
		cgroup_drop(c->cgdir);
		*why = stop_requested ? "sbxd stopped before the command started"
		    : "sbxd could not start the command";
		return -1;
	}
	setpgid(c->pid, c->pid);
	return 0;
}

/* Runs the started child c to its end (timeout, output caps), then
 * writes the result: the same for a direct run and a spare's. Returns
 * the executor's exit status (0: the result is written). */
static int
executor_supervise(const struct exec_spec *s, struct child *c)
{
	struct stream st[2] = { { .name = "stdout" }, { .name = "stderr" } };
	int i, status = 0, n, timed_out = 0, exited = 0, pidfd, rc = -1, ws;
	int64_t t0, deadline, kill_at = 0, drain_at = 0, now;
	struct pollfd pfd[3];
	pid_t pid = c->pid, w;
	cJSON *r;

	for (i = 0; i < 2; i++) {
		crypto_generichash_init(&st[i].hash, NULL, 0, 32);
		st[i].out = open_capture(s->sbfd, s->id, st[i].name, c->pm.fd[i]);
	}
	st[0].fd = c->out_r;
	st[1].fd = c->err_r;
	t0 = mono_ms();
	deadline = t0 + (int64_t)s->timeout_s * 1000;
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
		/* Every child: a spare executor is a subreaper, and the run's
		 * orphans, its children, count in pids.max until reaped. */
		while ((w = waitpid(-1, &ws, WNOHANG)) > 0)
			if (w == pid && !exited) {
				status = ws;
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
	/* What is left of the run is killed now (all but a spare executor,
	 * which is in its cgroup too); a cgroup of the run's own is removed
	 * after the result (a removal waits while a spare moves into its own). */
	if (c->inside)
		(void)cgroup_clear(c->cgdir, getpid());
	else
		cgroup_kill(c->cgdir);
	if (pidfd >= 0)
		close(pidfd);

	for (i = 0; i < 2; i++)
		publish_capture(s->sbfd, s->id, st[i].name, st[i].out, st[i].kept);
	if ((r = result_final(s, status, timed_out, t0))) {
		for (i = 0; i < 2; i++)
			stream_result(&st[i], r);
		rc = result_write_how(s->sbfd, s->id, r, 0, c->pm.fd[PM_RESULT]);
	} else if (c->pm.fd[PM_RESULT] >= 0) {
		close(c->pm.fd[PM_RESULT]);
	}
	rc = r && rc == 0 ? 0 : 1;
	cJSON_Delete(r);
	if (!c->inside)
		cgroup_drop(c->cgdir);
	return rc;
}

/* The executor process, the direct way: never returns. */
static void
executor(const struct exec_spec *s, pid_t daemon)
{
	struct child c;
	const char *why = "";

	executor_detach(s->close_fds, s->n_close_fds, daemon);
	premade_make(&c.pm, -1);        /* none: made now, as they come */
	if (child_start(s, &c, daemon, &why) < 0) {
		result_write_status(s->sbfd, s->id, s->hash, req_status_name(REQ_INTERRUPTED),
		    s->approver, why);
		_exit(1);
	}
	_exit(executor_supervise(s, &c));
}

/*
 * The spare executor. Moving a process into a pids cgroup waits for an
 * RCU grace period and holds up every fork, exec and exit on the
 * machine meanwhile (4-15 ms with cgroup v1); making and removing one
 * takes milliseconds too. A spare does that once, ahead of time, and
 * its cgroup then serves run after run. sbxd forks a spare executor E
 * when it has fewer than two (exec_spare_keep; a run takes the oldest);
 * E makes a fresh cgroup (pids.max 2 meanwhile), moves itself into it
 * and forks its child C, born in it, which says ready and waits. To
 * start a run, sbxd sends E the run (a sealed memfd) and the folder's
 * .sandbox fd (handoff.h); E answers "taken" before anything else,
 * checks that C is alive, not stopped, and that the cgroup holds C and
 * E only, sets the run's pids.max (one more: E is in it) and hands C
 * the run: C execs the command as a direct child does (child_exec), and
 * E supervises it as a direct executor does (executor_supervise).
 *
 * After the result E kills what is left in the cgroup but itself, then
 * starts its successor E' in it (clone with CLONE_PARENT: born in the
 * cgroup, a child of sbxd, never moved) and tells sbxd its pid ("e") as
 * its last words. E' is a spare as E was, with its own child, and its
 * files made for the folder of the last run. sbxd adopts E' when it
 * reaps E (exec_spare_reaped), checking that E' is its live child;
 * otherwise the cgroup goes. So a run costs no cgroup move, no mkdir and
 * no rmdir; a cgroup is removed only by sbxd, once no executor of ours
 * is in it.
 *
 * Fail closed, whatever a command of the same user does to a spare. It
 * may kill or stop E, E' or C (and as root move processes into or out
 * of the cgroup); it can neither trace them nor read or write their
 * memory (not dumpable, as sbxd itself is), nor reach their sockets
 * through them.
 * - sbxd falls back to the direct path only when E did not answer
 *   "taken" and is dead (its socket at its end): E starts nothing
 *   before that answer. An answer that does not come within
 *   SPARE_ANSWER_MS gets E killed and the socket read to its end:
 *   "taken" there means E owned the run (recorded as any executor that
 *   died), else the direct path. Never twice, never a hang.
 * - E that finds C unfit (or the cgroup holding anything else) kills it
 *   and starts the command the direct way (child_start): in a cgroup of
 *   its own, never outside one when sbxd may make one; no successor.
 * - E killed during its run leaves no successor sbxd would adopt: sbxd
 *   drops the cgroup with whatever is in it. A command that kills E
 *   while it runs is killed with it.
 * - A spare that dies idle is forgotten and its cgroup dropped; the
 *   next one is forked SPARE_RETRY_MS later, not in a loop.
 * - The files it made ahead (premade_make) are unnamed and its own: a
 *   command reaches them only once they are linked to the names a
 *   direct run's have, and a dead spare leaves none.
 */
#define SPARE_ANSWER_MS 1000    /* sbxd waits this long for "taken" */
#define SPARE_READY_MS  2000    /* E waits this long for C's "ready" */
#define SPARE_RETRY_MS  1000    /* after a spare that failed or died idle */
#define SPARE_CLEAR_MS  1000    /* E kills what is left of a run this long */

/* E's last words after a run: "e" and its successor's pid (its pidfd
 * comes with it). */
struct spare_next_msg {
	char tag;
	pid_t pid;
};

/* The state letter of /proc/PID/stat ('R', 'S', 'T' ...), or 0. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* C, the spare's child: born in its cgroup, waits for its run (the
 * run's memfd and the task count for RLIMIT_NPROC). Never returns. */
static void
spare_child(int sock, int out_w, int err_w, pid_t parent)
{
	struct handoff_run sc;
	long tasks;
	int fd;

	child_prepare();
	prctl(PR_SET_NAME, "sbxd-spare-cmd");
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(0);
	if (handoff_send(sock, "r", 1, NULL, 0) < 0 || handoff_recv(sock, &tasks, sizeof(tasks), &fd, 1) < 0)
		_exit(0);
	/* Handed the run: from here on, E waits for this process as the
	 * command. It outlives E, as a direct child does. */
	if (handoff_decode(fd, &sc) < 0) {
		dprintf(err_w, "sbxd: the spare could not read its run\n");
		_exit(126);
	}
	close(fd);
	prctl(PR_SET_PDEATHSIG, 0);
	child_exec(&sc.s, out_w, err_w, "", tasks);
}

/* E in its cgroup: kills what else is in it, and reaps what is its own
 * (E is a subreaper: a run's orphans are its children), until nothing
 * else is there, nor charged (a zombie counts in pids.max until reaped),
 * or ms passed. 0 or -1. */
static int
spare_clear(const char *cgdir, int ms)
{
	int64_t until = mono_ms() + ms;
	long cur;
	int rc;

	for (;;) {
		rc = cgroup_clear(cgdir, getpid());
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (rc == 0 && ((cur = cgroup_current(cgdir)) == 1 || cur < 0))
			return 0;
		if (mono_ms() >= until)
			return -1;
		usleep(1000);
	}
}

/* Kills C (not yet handed a run). What else is in the cgroup is killed
 * when it goes, after E moved out (spare_exit, the unfit path) or once
 * sbxd reaps E. */
static void
spare_kill(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
}

/* C can run s: ready, alive, not stopped, alone with E in their cgroup
 * (or without one, as a direct run would be now). */
static int
spare_fits(struct child *c, const struct exec_spec *s, int ready)
{
	pid_t both[2] = { getpid(), c->pid };
	char st;

	if (!ready || waitpid(c->pid, NULL, WNOHANG) != 0) {
		if (!ready)
			return 0;
		c->pid = 0;     /* gone, and reaped now */
		return 0;
	}
	st = proc_state(c->pid);
	if (st != 'S' && st != 'R' && st != 'D')
		return 0;
	if (c->cgdir[0])
		return cgroup_holds(c->cgdir, both, 2) == 1 &&
		    cgroup_set_max(c->cgdir, s->max_procs > 0 ? s->max_procs + 1 : 0) == 0;
	return !(s->max_procs > 0 && cgroup_available());
}

/* Waits up to ms for C's "ready"; 1 when it came. */
static int
spare_wait_ready(int csock, int ms)
{
	int64_t until = mono_ms() + ms;
	char b = 0;

	int64_t left;

	while ((left = until - mono_ms()) > 0 && !stop_requested)
		if (poll(&(struct pollfd){ csock, POLLIN, 0 }, 1, (int)left) > 0)
			return recv(csock, &b, 1, MSG_DONTWAIT) == 1 && b == 'r';
	return 0;
}

/* E ends with status rc, leaving no successor: it moves out of its
 * cgroup and removes it. (sbxd, when alive, drops it too once it reaps
 * E: E may have been killed. A removal that finds it gone is no harm.)
 * E ends so when sbxd is gone, stops or closed its socket, when its
 * child is unfit, or when a successor could not be made: never per run. */
static _Noreturn void
spare_exit(const char *cgdir, int rc)
{
	if (*cgdir && cgroup_set_max(cgdir, 1) == 0 && cgroup_leave(cgdir) == 0)
		cgroup_drop(cgdir);
	_exit(rc);
}

/* After E's run in its cgroup (c): E' started in it for the next run,
 * its pid sent to sbxd. Returns NEXT_SELF in E' (which makes its files
 * in the folder of the run, sbfd), in E NEXT_MADE when E' took the
 * cgroup over, else NEXT_NONE. */
enum { NEXT_NONE, NEXT_MADE, NEXT_SELF };
static int
spare_next(int sock, pid_t daemon, struct child *c)
{
	struct spare_next_msg m;
	struct clone_args ca;
	int pidfd = -1, rc;
	long pid;

	/* No fork in the cgroup while it is cleared (a run without a limit
	 * has "max" there), then room for E' and its child. */
	if (!c->inside || stop_requested || getppid() != daemon ||
	    cgroup_set_max(c->cgdir, 1) < 0 || spare_clear(c->cgdir, SPARE_CLEAR_MS) < 0 ||
	    cgroup_set_max(c->cgdir, 3) < 0)
		return NEXT_NONE;
	/* Like fork(), with sbxd as the parent (its exit signal is E's:
	 * SIGCHLD) and a pidfd that names E' for sure (a pid may be reused
	 * once E' is gone). No glibc atfork handlers: E is single-threaded.
	 * No clone3 (Linux < 5.3): no successor. */
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PARENT | CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		return NEXT_SELF;
	if (pid < 0)
		return NEXT_NONE;
	memset(&m, 0, sizeof(m));
	m.tag = 'e';
	m.pid = (pid_t)pid;
	rc = handoff_send(sock, &m, sizeof(m), &pidfd, 1);
	if (rc < 0)
		kill((pid_t)pid, SIGKILL);      /* unknown to sbxd: the cgroup goes */
	close(pidfd);
	return rc < 0 ? NEXT_NONE : NEXT_MADE;
}

/* E idle: C's "ready", then sbxd's run. 1 when sbxd's message is there
 * to read; 0 when anything else came (C gone, its socket at its end,
 * sbxd's, a stop): that ends the spare, and sbxd forks another. */
static int
spare_idle(int sock, int csock, int *ready)
{
	struct pollfd pfd[2];
	char b;

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = sock, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = csock, .events = POLLIN };
		if (stop_requested)
			return 0;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (pfd[0].revents)
			return (pfd[0].revents & POLLIN) != 0;
		if (pfd[1].revents) {
			if (*ready || recv(csock, &b, 1, MSG_DONTWAIT) != 1 || b != 'r')
				return 0;
			*ready = 1;
		}
	}
}

/* One life of a spare executor, E: sock is its end of sbxd's socket,
 * cgdir its cgroup ("" without one), inside 1 when E is in it already
 * (a successor), hint the .sandbox of the folder to make the next run's
 * files in (-1: none). Returns in a successor only, with its hint. */
static int
spare_life(int sock, pid_t daemon, const char *cgdir, int inside, int hint)
{
	struct handoff_run sc;
	struct child c = { .pid = 0 };
	int cs[2], op[2], ep[2], fds[2], ready = 0, rc, sbfd;
	const char *why = "";
	pid_t self;
	long tasks = -1;
	char b;

	executor_detach(NULL, 0, daemon);
	self = getpid();
	prctl(PR_SET_NAME, "sbxd-spare");
	/* The run's orphans become E's children, reaped as they end (a
	 * SIGCHLD wakes its poll; waits are restarted). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = on_child,
	    .sa_flags = SA_RESTART | SA_NOCLDSTOP }, NULL);
	snprintf(c.cgdir, sizeof(c.cgdir), "%s", cgdir);
	/* Nothing of sbxd's: no lock, no database, no inotify. The socket
	 * becomes fd 3, the hint fd 4. */
	if ((sock = fcntl(sock, F_DUPFD_CLOEXEC, 10)) < 0 ||
	    (hint >= 0 && (hint = fcntl(hint, F_DUPFD_CLOEXEC, 10)) < 0) ||
	    dup2(sock, 3) < 0 || (hint >= 0 && dup2(hint, 4) < 0))
		_exit(1);
	closefrom(hint >= 0 ? 5 : 4);
	sock = 3;
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	hint = hint >= 0 ? 4 : -1;
	premade_make(&c.pm, -1);
	/* E moves into its new cgroup (once: its successors are born in
	 * it), then C is born in it. */
	c.inside = c.cgdir[0] != '\0';
	if ((c.cgdir[0] && !inside && (cgroup_create(c.cgdir, 2) < 0 || cgroup_join(c.cgdir) < 0)) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cs) < 0 ||
	    pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0 ||
	    (c.pid = fork()) < 0) {
		c.pid = 0;
		spare_kill(&c);
		spare_exit(cgdir, 1);
	}
	if (c.pid == 0) {
		close(sock);
		if (hint >= 0)
			close(hint);
		close(cs[0]);
		close(op[0]);
		close(ep[0]);
		spare_child(cs[1], op[1], ep[1], self);
	}
	close(cs[1]);
	close(op[1]);
	close(ep[1]);
	/* The next run's files, while C gets ready (after C's fork: C never
	 * holds them). */
	if (hint >= 0) {
		premade_make(&c.pm, hint);
		close(hint);
	}
	if (!spare_idle(sock, cs[0], &ready) || stop_requested ||
	    handoff_recv(sock, &b, 1, fds, 2) < 0 || b != 's') {
		spare_kill(&c);
		spare_exit(cgdir, 0);
	}
	if (handoff_decode(fds[1], &sc) < 0) {
		(void)handoff_send(sock, "n", 1, NULL, 0);
		spare_kill(&c);
		spare_exit(cgdir, 0);
	}
	sc.s.sbfd = fds[0];
	/* "taken": the run is E's from here on, and only from here on. */
	if (handoff_send(sock, "k", 1, NULL, 0) < 0) {
		spare_kill(&c);
		spare_exit(cgdir, 0);
	}
	(void)premade_fits(&c.pm, sc.s.sbfd);
	prctl(PR_SET_NAME, "sbxd");
	if (!ready)
		ready = spare_wait_ready(cs[0], SPARE_READY_MS);
	if (sc.s.max_procs > 0 && geteuid() != 0 && (tasks = user_tasks()) > 0)
		tasks--;        /* C is counted already; a direct child is not yet */
	if (!stop_requested && spare_fits(&c, &sc.s, ready) &&
	    handoff_send(cs[0], &tasks, sizeof(tasks), &fds[1], 1) == 0) {
		close(cs[0]);
		close(fds[1]);
		c.out_r = op[0];
		c.err_r = ep[0];
		rc = executor_supervise(&sc.s, &c);
		/* Nothing of the run's goes on to E' but its folder. */
		sbfd = sc.s.sbfd;
		handoff_free(&sc);
		/* The socket is not the command's: C closed it (and it is
		 * close-on-exec). */
		switch (spare_next(sock, daemon, &c)) {
		case NEXT_SELF:
			return sbfd;
		case NEXT_MADE:
			_exit(rc);      /* E' has the cgroup now */
		default:
			spare_exit(cgdir, rc);
		}
	}
	/* C is unfit (killed, stopped, moved, not alone): E moves out of its
	 * cgroup, which goes with what is left in it, and starts the command
	 * the direct way, in a cgroup of its own. */
	close(cs[0]);
	close(fds[1]);
	close(op[0]);
	close(ep[0]);
	spare_kill(&c);
	if (*cgdir && (cgroup_set_max(cgdir, 1) < 0 || cgroup_leave(cgdir) < 0))
		why = "sbxd could not leave the spare's cgroup";
	else if (*cgdir)
		cgroup_drop(cgdir);
	if (*why || child_start(&sc.s, &c, daemon, &why) < 0) {
		result_write_status(sc.s.sbfd, sc.s.id, sc.s.hash, req_status_name(REQ_INTERRUPTED),
		    sc.s.approver, why);
		spare_exit(cgdir, 1);
	}
	spare_exit(cgdir, executor_supervise(&sc.s, &c));
}

/* A spare executor and its successors, one after another in the same
 * cgroup: each life returns in the next one only. Never returns. */
static void
spare_main(int sock, pid_t daemon, const char *cgdir, int hint)
{
	char cg[PATH_MAX];
	int inside = 0;

	snprintf(cg, sizeof(cg), "%s", cgdir);
	for (;;) {
		hint = spare_life(sock, daemon, cg, inside, hint);
		sock = 3;
		inside = 1;
	}
}

/*
 * sbxd's side: its idle spare executors, SBX_SPARES of them. One spare
 * was not enough when runs follow each other: the next one is forked
 * when a run is handed over, and its child's move into its cgroup (an
 * RCU grace period, 6-20 ms on a busy machine) was often not over when
 * the next request came, which then waited for it (37 of 200 back-to-
 * back round trips, up to 20 ms). With two, the one used is the oldest
 * (it had a whole run more to get ready) and the next is forked behind.
 */
#define SBX_SPARES 2
static struct spare {
	pid_t pid;                  /* 0: none */
	int sock;
	char cgdir[PATH_MAX];
	unsigned n;                 /* its serial: the lowest is the oldest */
} spares[SBX_SPARES] = { { .sock = -1 }, { .sock = -1 } };
static int64_t spare_next_ms;   /* no new spare before this (mono_ms) */
static unsigned spare_serial;

/*
 * The next spare is made after the run that used the last one, not while
 * it runs: its fork, its cgroup's mkdir, its move into it and its files
 * (premade_make) would otherwise compete, on a small machine, with the
 * command and the result its hook waits for. With a cgroup, the run's
 * executor leaves its successor as the next spare: sbxd forks none while
 * the run goes on, however long (a fresh one would take the slot, and
 * the successor, with no room, would be killed). Without one, the run's
 * end (sbxd reaps its executor, exec_spare_reaped) lets the next start,
 * and so does SPARE_DEFER_MS (a long command does not keep sbxd on one
 * spare). With no idle spare left, the next starts at once.
 */
#define SPARE_DEFER_MS  100
/* The executors that took a spare's run, until sbxd reaps them: then
 * their successor becomes a spare, or their cgroup goes (spare_adopt).
 * As many as run: the array grows. */
static struct spare_run {
	pid_t pid;
	int64_t until;              /* mono_ms: the next spare waits till then */
	int sock;                   /* its socket (its last words), or -1 */
	char cgdir[PATH_MAX];       /* "" without one */
} *spare_runs;
static size_t n_spare_runs, cap_spare_runs;

/* The folder of the last run (a .sandbox fd of sbxd's own), where the
 * next spare makes its run's files; -1 before the first run. */
static int hint_fd = -1;
static dev_t hint_dev;
static ino_t hint_ino;

static void
hint_set(int sbfd)
{
	struct stat st;
	int fd;

	if (fstat(sbfd, &st) < 0 || (hint_fd >= 0 && st.st_dev == hint_dev &&
	    st.st_ino == hint_ino))
		return;
	if ((fd = fcntl(sbfd, F_DUPFD_CLOEXEC, 3)) < 0)
		return;
	if (hint_fd >= 0)
		close(hint_fd);
	hint_fd = fd;
	hint_dev = st.st_dev;
	hint_ino = st.st_ino;
}

/* The ms until a run sbxd waits for before its next spare ends its
 * wait; 0 when there is none (or no spare left idle). */
static int64_t
spare_defer_ms(void)
{
	int64_t now = mono_ms(), left = 0;
	size_t k;
	int i, idle = 0;

	for (i = 0; i < SBX_SPARES; i++)
		idle += spares[i].pid > 0;
	for (k = 0; idle && k < n_spare_runs; k++)
		if (spare_runs[k].until - now > left)
			left = spare_runs[k].until - now;
	return left;
}

/* Room for one more entry in spare_runs. 0 or -1. */
static int
spare_runs_reserve(void)
{
	struct spare_run *v;
	size_t cap;

	if (n_spare_runs < cap_spare_runs)
		return 0;
	cap = cap_spare_runs ? 2 * cap_spare_runs : 4;
	if (!(v = realloc(spare_runs, cap * sizeof(*v))))
		return -1;
	spare_runs = v;
	cap_spare_runs = cap;
	return 0;
}

/* sbxd forgets spare sp; drop: its cgroup too (E could not). */
static void
spare_forget(struct spare *sp, int drop, int64_t next_ms)
{
	if (sp->sock >= 0)
		close(sp->sock);
	sp->sock = -1;
	if (drop)
		cgroup_drop(sp->cgdir);
	sp->cgdir[0] = '\0';
	sp->pid = 0;
	spare_next_ms = next_ms;
}

/* A slot without a spare, or NULL. */
static struct spare *
spare_free_slot(void)
{
	int i;

	for (i = 0; i < SBX_SPARES; i++)
		if (spares[i].pid <= 0)
			return &spares[i];
	return NULL;
}

/* The oldest spare, or NULL. */
static struct spare *
spare_oldest(void)
{
	struct spare *best = NULL;
	int i;

	for (i = 0; i < SBX_SPARES; i++)
		if (spares[i].pid > 0 && (!best || spares[i].n < best->n))
			best = &spares[i];
	return best;
}

void
exec_spare_keep(void)
{
	pid_t daemon = getpid(), pid;
	struct spare *sp;
	char name[64];
	int sv[2];

	/* One fork per wake: the first spare before the second; none while
	 * a run that took one goes on (spare_defer_ms). */
	if (!(sp = spare_free_slot()) || mono_ms() < spare_next_ms || spare_defer_ms() > 0)
		return;
	spare_next_ms = 0;
	sp->n = spare_serial++;
	snprintf(name, sizeof(name), "spare-%ld-%u", (long)daemon, sp->n);
	/* Where sbxd may make cgroups, a spare has one (the spare makes it:
	 * never sbxd, whom a concurrent move elsewhere would hold up). */
	sp->cgdir[0] = '\0';
	if ((cgroup_available() && cgroup_name(name, sp->cgdir, sizeof(sp->cgdir)) < 0) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		spare_next_ms = mono_ms() + SPARE_RETRY_MS;
		return;
	}
	if ((pid = fork()) == 0) {
		close(sv[0]);
		spare_main(sv[1], daemon, sp->cgdir, hint_fd);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		spare_next_ms = mono_ms() + SPARE_RETRY_MS;
		return;
	}
	sp->pid = pid;
	sp->sock = sv[0];
}

int
exec_spare_due_ms(void)
{
	int64_t d;

	if (!spare_free_slot())
		return -1;
	d = spare_next_ms - mono_ms();
	if (spare_defer_ms() > d)
		d = spare_defer_ms();
	return d <= 0 ? 0 : d > INT_MAX ? INT_MAX : (int)d;
}

/* E's answer within ms: 1 with b, 0 at the socket's end, -1 none yet. */
static int
spare_answer(int sock, char *b, int ms)
{
	int64_t until = mono_ms() + ms, left;
	ssize_t r;

	for (;;) {
		r = recv(sock, b, 1, MSG_DONTWAIT);
		if (r >= 0 || (errno != EAGAIN && errno != EINTR))
			return r == 1 ? 1 : 0;
		/* Never a negative timeout: poll would wait for ever. */
		if ((left = until - mono_ms()) <= 0)
			return -1;
		(void)poll(&(struct pollfd){ sock, POLLIN, 0 }, 1, (int)left);
	}
}

/* Hands s to the oldest spare: E's pid once it took the run, else -1
 * (nothing started: the caller takes the direct path). */
static pid_t
spare_take(const struct exec_spec *s)
{
	int fds[2] = { s->sbfd, -1 }, rc = 0, killed = 0;
	struct spare *sp = spare_oldest();
	pid_t pid = sp ? sp->pid : 0;
	char b = 0;

	if (pid <= 0 || spare_runs_reserve() < 0 || (fds[1] = handoff_encode(s)) < 0)
		return -1;
	if (handoff_send(sp->sock, "s", 1, fds, 2) == 0 &&
	    (rc = spare_answer(sp->sock, &b, SPARE_ANSWER_MS)) < 0) {
		/* Stopped, or starved: killed, and its last words read. */
		kill(pid, SIGKILL);
		killed = 1;
		if ((rc = spare_answer(sp->sock, &b, 2 * SPARE_ANSWER_MS)) < 0)
			b = 'k';        /* not even its end: it may have the run */
	}
	close(fds[1]);
	if (b == 'k') {
		/* A killed E's cgroup (and what is left in it) goes here; a
		 * live one's when sbxd reaps it, unless a successor takes it
		 * over (spare_adopt), which E names on this socket. */
		spare_runs[n_spare_runs].pid = pid;
		spare_runs[n_spare_runs].until = !killed && sp->cgdir[0] ? INT64_MAX :
		    mono_ms() + SPARE_DEFER_MS;
		spare_runs[n_spare_runs].sock = killed ? -1 : sp->sock;
		snprintf(spare_runs[n_spare_runs].cgdir, sizeof(spare_runs->cgdir), "%s",
		    killed ? "" : sp->cgdir);
		n_spare_runs++;
		if (!killed)
			sp->sock = -1;
		spare_forget(sp, killed, 0);
		return pid;
	}
	if (rc >= 0 && b != 'n')
		kill(pid, SIGKILL);     /* could not send: never use it again */
	spare_forget(sp, 1, mono_ms() + SPARE_RETRY_MS);
	return -1;
}

#ifndef P_PIDFD
#define P_PIDFD 3               /* linux/wait.h, Linux >= 5.4 */
#endif

/* 1 when pidfd names pid, a child of sbxd's not reaped, alive: the pid
 * in its fdinfo, and waitid on the pidfd (a child's only) sees it run.
 * A pid alone could name another process once that one was reaped. */
static int
pidfd_alive_child(int pidfd, pid_t pid)
{
	char path[64], buf[1024], *p;
	siginfo_t si;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (!(p = strstr(buf, "\nPid:\t")) || atol(p + 6) != (long)pid)
		return 0;
	memset(&si, 0, sizeof(si));
	return waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == 0;
}

/*
 * E (r) is gone after its run. Its successor becomes a spare when E
 * named it ("e" and its pid, its last words) and it is a live child of
 * sbxd's, with a free slot; it is the youngest then. Otherwise the
 * cgroup goes: at once, or, with a successor alive but no slot for it,
 * when sbxd reaps it killed. A killed E names nobody sbxd would take.
 */
static void
spare_adopt(const struct spare_run *r, int killed)
{
	struct spare_next_msg m = { 0 };
	struct spare *sp;
	int alive = 0, pidfd = -1;

	if (!killed && r->sock >= 0 && poll(&(struct pollfd){ r->sock, POLLIN, 0 }, 1, 0) == 1 &&
	    handoff_recv(r->sock, &m, sizeof(m), &pidfd, 1) == 0 && m.tag == 'e' && m.pid > 0)
		alive = pidfd_alive_child(pidfd, m.pid);
	if (alive && r->cgdir[0] && (sp = spare_free_slot())) {
		close(pidfd);
		sp->pid = m.pid;
		sp->sock = r->sock;
		snprintf(sp->cgdir, sizeof(sp->cgdir), "%s", r->cgdir);
		sp->n = spare_serial++;
		return;
	}
	if (r->sock >= 0)
		close(r->sock);
	if (alive)
		(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	if (pidfd >= 0)
		close(pidfd);
	if (alive) {
		if (spare_runs_reserve() == 0) {
			spare_runs[n_spare_runs] = (struct spare_run){ .pid = m.pid, .sock = -1 };
			snprintf(spare_runs[n_spare_runs].cgdir, sizeof(spare_runs->cgdir), "%s",
			    r->cgdir);
			n_spare_runs++;
			return;
		}
	}
	cgroup_drop(r->cgdir);
}

int
exec_spare_reaped(pid_t pid, int killed)
{
	struct spare_run r;
	size_t k;
	int i;

	for (i = 0; i < SBX_SPARES; i++)
		if (pid > 0 && spares[i].pid == pid) {
			spare_forget(&spares[i], 1, mono_ms() + SPARE_RETRY_MS);
			return 1;
		}
	for (k = 0; pid > 0 && k < n_spare_runs; k++)
		if (spare_runs[k].pid == pid) {
			r = spare_runs[k];
			spare_runs[k] = spare_runs[--n_spare_runs];
			spare_adopt(&r, killed);
			break;
		}
	return 0;
}

void
exec_spare_stop(void)
{
	int64_t until = mono_ms() + 1000;
	int i, gone;

	for (i = 0; i < SBX_SPARES; i++)
		if (spares[i].pid > 0)
			kill(spares[i].pid, SIGTERM);
	for (i = 0; i < SBX_SPARES; i++) {
		if (spares[i].pid > 0) {
			while (!(gone = waitpid(spares[i].pid, NULL, WNOHANG) == spares[i].pid) &&
			    mono_ms() < until)
				usleep(5000);
			if (!gone) {
				kill(spares[i].pid, SIGKILL);
				waitpid(spares[i].pid, NULL, 0);
			}
		}
		spare_forget(&spares[i], 1, INT64_MAX);
	}
}

pid_t
exec_start(const struct exec_spec *s)
{
	pid_t daemon = getpid(), pid;
	size_t k;
	int i;

	hint_set(s->sbfd);
	if ((pid = spare_take(s)) > 0)
		return pid;
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < SBX_SPARES; i++)
			if (spares[i].sock >= 0)
				close(spares[i].sock);
		for (k = 0; k < n_spare_runs; k++)
			if (spare_runs[k].sock >= 0)
				close(spare_runs[k].sock);
		if (hint_fd >= 0)
			close(hint_fd);
		executor(s, daemon);
	}
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

int
result_confirm(int sbfd, const char *id, char *receipt, size_t receiptsz)
{
	char res[SBX_QUEUE_PATH_MAX], nonce[SBX_RECEIPT_LEN + 2], *text;
	const char *status, *base;
	unsigned char pk[32];
	struct stat st, dst;
	struct sbx_err err;
	cJSON *r = NULL;
	ssize_t n = -1;
	size_t len;
	uid_t maker;
	int dfd, fd, rc = -1;

	snprintf(receipt, receiptsz, "%s", "");
	if (!have_result_sk)
		return 0;
	crypto_sign_ed25519_sk_to_pk(pk, result_sk);
	snprintf(res, sizeof(res), "%s", queue_path(QP_RESULT, id).s);
	if (!(text = read_daemon_file(sbfd, res, SBX_MAX_RESULT, &len, &err)))
		return errno == ENOENT ? 0 : -1;
	r = cJSON_ParseWithLength(text, len);
	free(text);
	status = json_str(r, "status");
	/* Not ours (sbxd replaces a forged one when it writes the real one),
	 * not an allowance, or confirmed already: never written twice. */
	if (!r || !status || strcmp(status, req_status_name(REQ_APPROVED)) != 0 ||
	    cJSON_GetObjectItemCaseSensitive(r, "receipt") || !result_sig_ok(r, pk)) {
		rc = 0;
		goto out;
	}
	/* The receipt holds the nonce: a regular file of the agent's user
	 * (what the agent could read anyway), read without following a link.
	 * That user is the drop box's owner, or in a handed-over folder the
	 * one the users file names (never sbxd's own: a hard link to a file
	 * of ours planted there is not read into the result). Anything
	 * else there, or nothing: "" (nobody's). */
	nonce[0] = '\0';
	if ((dfd = at_parent(sbfd, queue_path(QP_DELIVERED, id).s, &base)) >= 0) {
		if ((maker = sandbox_peer(sbfd)) == (uid_t)-1 && fstat(dfd, &dst) == 0)
			maker = dst.st_uid;
		if (maker != (uid_t)-1 &&
		    (fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
			if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == maker &&
			    st.st_size == SBX_RECEIPT_LEN)
				n = read(fd, nonce, SBX_RECEIPT_LEN);
			close(fd);
		}
		close(dfd);
	}
	nonce[n == SBX_RECEIPT_LEN ? n : 0] = '\0';
	if (!is_hex(nonce, SBX_RECEIPT_LEN))
		nonce[0] = '\0';
	snprintf(receipt, receiptsz, "%s", nonce);
	if (!cJSON_AddStringToObject(r, "receipt", nonce) || result_sig_add(r, result_sk) < 0 ||
	    !(text = json_print_line(r)))
		goto out;
	/* Replaces the result: durable before the hook is woken. */
	rc = write_atomic(sbfd, "work", res, text, strlen(text), 0644, 0);
	free(text);
	if (rc == 0)
		wake_poke(sbfd, id);
out:
	cJSON_Delete(r);
	return rc;
}

void
exec_run_killed(const char *id)
{
	char name[64], dir[PATH_MAX];

	run_cgroup_name(name, sizeof(name), getpid(), id);
	if (cgroup_name(name, dir, sizeof(dir)) == 0)
		cgroup_drop(dir);
}

void
exec_cgroups_init(void)
{
	int n, kept;

	if (!cgroup_available()) {
		fprintf(stderr, "sbxd: no pids cgroup sbxd may write here (%s): "
		    "exec_max_processes is enforced with RLIMIT_NPROC only, which does not "
		    "bind root\n", geteuid() == 0 ? "none mounted" : "none delegated to this "
		    "user");
		return;
	}
	if ((n = cgroup_sweep(SBX_CGROUP_STALE_S, &kept)) > 0)
		fprintf(stderr, "sbxd: removed %d stale sbx-* pids cgroup(s) of sbxds that are "
		    "gone\n", n);
}
