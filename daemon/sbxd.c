/*
 * sbxd - the watcher daemon: runs approved commands outside the agent.
 *
 *   sbxd [-c CONFIG] [--pass-env NAME]... DIR...
 *
 * Serves each DIR (prepared by `sbx init`) in the foreground until
 * SIGTERM or SIGINT. Event-driven: it sleeps in poll(2) on one inotify
 * instance (every drop box of every folder), a self-pipe for signals and
 * one timerfd armed for the earliest timed work of any folder (the next
 * expiry, expiry notice, retention prune, undelivered result, audit
 * checkpoint); there is no periodic wake and no periodic rescan. It
 * rescans every folder on start-up and when the kernel's inotify queue
 * overflowed, so nothing dropped while it was down or overloaded is
 * lost; a request is claimed by rename, so a rescan never runs one twice.
 * An idle folder's database is closed (beyond the SBXD_OPEN_DBS most
 * recently used) and reopened, after checks, for its next event or timer
 * (folder_db_open); what is due next is kept in memory meanwhile.
 *
 * Exit codes: 0 stopped by a signal, 1 runtime error (also: every folder it
 * served was removed or replaced), 2 usage or setup.
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
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/util.h"
#include "common/protocol/originals.h"
#include "common/protocol/registry.h"
#include "common/store/retention.h"
#include "common/store/store.h"
#include "daemon/audit.h"
#include "daemon/exec.h"
#include "daemon/folder.h"
#include "daemon/idle.h"
#include "daemon/notify.h"
#include "policy/policy.h"

#define MAX_ENV     64
/* Kept originals are pruned this long after the hook added some. */
#define ORIGINALS_DELAY_MS 60000
/* A result sbxd could not write (full disk) is retried this often. */
#define RETRY_MS    5000
/* Timed work that is due again at once after it ran (it failed) waits
 * this long: a failure never makes sbxd spin. */
#define AGAIN_MS    1000
/* SQLite's heap, all folders together, that page caches give way above. */
#define SBXD_SQLITE_HEAP (24LL * 1024 * 1024)
/* Idle folders whose database stays open, the most recently used: a
 * folder in use keeps its own open whatever their number; beyond these,
 * an idle folder's database is closed until its next event or timer
 * (folder_db_close). Not a cap on folders: nothing waits or is refused. */
#define SBXD_OPEN_DBS 16

static volatile sig_atomic_t got_stop, got_child, got_hup;
static char *cmd_env[MAX_ENV];   /* the clean environment for commands */
static int sig_pipe[2] = { -1, -1 };  /* the handler's wake-up for poll() */

static void
free_env(void)
{
	int i;

	for (i = 0; cmd_env[i]; i++)
		free(cmd_env[i]);
}

static void
on_signal(int sig)
{
	int e = errno;

	if (sig == SIGCHLD)
		got_child = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = 1;
	/* Non-blocking: a full pipe already means "wake up". */
	(void)!write(sig_pipe[1], "", 1);
	errno = e;
}

/* Variables passed through to executed commands; everything else is dropped. */
static const char *const default_env[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
	"SSH_AUTH_SOCK", NULL
};

static int
env_add(char **env, int *n, const char *name)
{
	const char *v = getenv(name);
	char *kv;

	if (!v)
		return 0;
	if (*n >= MAX_ENV - 1)
		return -2;      /* full: said, never dropped silently */
	if (!(kv = malloc(strlen(name) + strlen(v) + 2)))
		return -1;
	sprintf(kv, "%s=%s", name, v);
	env[(*n)++] = kv;
	env[*n] = NULL;
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sbxd [-c CONFIG] [--pass-env NAME]... [-C] DIR... | --all\n"
	    "Serves the sbx queue of each DIR (prepared with `sbx init DIR`) until\n"
	    "SIGTERM/SIGINT: runs approved commands outside the agent and writes\n"
	    "their results back. SIGHUP reloads (--all: serves folders prepared since).\n"
	    "  -c, --config DIR     sbx config dir with trusted approver keys\n"
	    "                       (default $SBX_CONFIG_DIR, $XDG_CONFIG_HOME/sbx, ~/.config/sbx)\n"
	    "  --pass-env NAME      also pass NAME to executed commands (default:\n"
	    "                       PATH HOME USER LOGNAME LANG LC_ALL LC_CTYPE TZ SSH_AUTH_SOCK)\n"
	    "  --audit-segment-bytes N\n"
	    "                       rotate the audit log above N bytes (default 16 MiB)\n"
	    "  --originals-cap BYTES  prune kept originals oldest-first above this size\n"
	    "                       (default 256 MiB per folder; checked a minute after\n"
	    "                       the hook kept more)\n"
	    "  --all                serve every folder `sbx init` recorded (CONFIG/folders)\n"
	    "  -C DIR               a folder to serve (the same as a DIR operand)\n"
	    "  -v, --verbose        log inotify events\n"
	    "  -h, --help, --version\n");
}

/*
 * The folders served, each with the timed work sbxd sleeps until. The
 * list grows as SIGHUP adds folders (no fixed cap: running out of memory,
 * file descriptors or inotify watches is said, loudly, per folder).
 */
struct served {
	struct folder *f;
	int64_t next_ms;            /* earliest due work (epoch ms), INT64_MAX: none */
	int64_t expiry;             /* the next pending request's expiry (s), 0 */
	int64_t warn;               /* the next expiry notice (s), 0 */
	int64_t warned;             /* notices sent for moments up to this (s) */
	int64_t originals_ms;       /* prune kept originals then (epoch ms), 0 */
	int64_t start_ms;           /* start approved requests that wait (epoch ms), 0 */
	int64_t audit_failed;       /* audit records lost, as last reported */
	int64_t used_ms;            /* its database last needed (mono_ms) */
	int touched;                /* had events in this wake: recompute */
	int checked;                /* folder_check() ran in this wake */
};

static struct served *sv;       /* static: still reachable at exit */
static int nsv;
static long long originals_cap;
static size_t capsv;
static int *lock_fds;           /* every folder's lock, closed in executors */
/* The signing key and log options, for a lazy folder's log (want_db). */
static const struct audit_key *log_key;
static const struct audit_opts *log_opts;
static int64_t started_ms;      /* when this sbxd started (daemon_start) */

/* What an inotify watch is for. */
enum wkind {
	W_QUEUE, W_DECISIONS, W_EVENTS, W_PROXY, W_DELIVERED, W_ORIGINALS, W_SANDBOX,
	W_FOLDER,
};

static const char *const wkind_name[] = {
	"queue", "decisions", "events", "proxy events", "delivered", "originals",
	".sandbox", "folder",
};

/* Watch descriptor -> (folder, kind), sorted by wd for a binary search. */
struct wmap {
	int wd, fi, kind;
};

static struct wmap *wm;
static size_t nwm, capwm;
static int ifd = -1;            /* the one inotify instance */

static struct wmap *
wm_find(int wd)
{
	size_t lo = 0, hi = nwm, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (wm[mid].wd == wd)
			return &wm[mid];
		if (wm[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int
wm_add(int wd, int fi, int kind)
{
	struct wmap *n, *w;
	size_t i;

	if ((w = wm_find(wd))) {
		/* The kernel gave a wd again (its old watch is gone). */
		w->fi = fi;
		w->kind = kind;
		return 0;
	}
	if (nwm == capwm) {
		if (!(n = realloc(wm, (capwm ? capwm * 2 : 256) * sizeof(*wm))))
			return -1;
		wm = n;
		capwm = capwm ? capwm * 2 : 256;
	}
	for (i = nwm; i > 0 && wm[i - 1].wd > wd; i--)
		wm[i] = wm[i - 1];
	wm[i] = (struct wmap){ wd, fi, kind };
	nwm++;
	return 0;
}

static void
wm_del(int wd)
{
	struct wmap *w = wm_find(wd);
	size_t i;

	if (!w)
		return;
	for (i = (size_t)(w - wm); i + 1 < nwm; i++)
		wm[i] = wm[i + 1];
	nwm--;
}

/* Watches FOLDER/.sandbox/SUB (SUB NULL: the folder itself), never
 * through a symlink. -1 with errno set. */
static int
watch(int fi, const char *sub, uint32_t mask, int kind)
{
	struct folder *f = sv[fi].f;
	char path[PATH_MAX + 32];
	int wd;

	if (xsnprintf(path, sizeof(path), "%s%s%s", f->path, sub ? "/.sandbox/" : "",
	    sub ? sub : "") < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* The directory itself removed or moved: folder_check() says so. */
	wd = inotify_add_watch(ifd, path, mask | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR |
	    IN_DONT_FOLLOW);
	if (wd < 0)
		return -1;
	if (wm_add(wd, fi, kind) < 0) {
		(void)inotify_rm_watch(ifd, wd);
		errno = ENOMEM;
		return -1;
	}
	return wd;
}

/* A drop box: files renamed in (the protocol), written in place, and
 * anything linked in (a symlink or hard link is created, never written:
 * it is moved aside as a bad file). */
#define DROP_BOX (IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE)

/* Every watch a folder needs; -1 (errno set) if one cannot be added. */
static int
watch_folder(int fi)
{
	static const struct {
		const char *sub;
		uint32_t mask;
		int kind;
	} w[] = {
		{ "queue/new", DROP_BOX, W_QUEUE },
		{ "decisions/new", DROP_BOX, W_DECISIONS },
		{ "queue/events", DROP_BOX, W_EVENTS },
		{ "proxy/events", DROP_BOX, W_PROXY },
		{ "queue/delivered", IN_CREATE | IN_MOVED_TO, W_DELIVERED },
		{ "queue/originals/index", IN_MOVED_TO | IN_CLOSE_WRITE, W_ORIGINALS },
		/* entries of .sandbox removed or moved; policy.accepted renamed in */
		{ ".", IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO, W_SANDBOX },
		/* the folder itself moved or removed (no events of its entries) */
		{ NULL, 0, W_FOLDER },
	};
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (watch(fi, w[i].sub, w[i].mask, w[i].kind) < 0)
			return -1;
	return 0;
}

/* Adds a folder to the list (it stays at this index). -1: out of memory. */
static int
served_add(struct folder *f)
{
	struct served *n;
	int *nl;

	if ((size_t)nsv == capsv) {
		if (!(n = realloc(sv, (capsv ? capsv * 2 : 16) * sizeof(*sv))))
			return -1;
		sv = n;
		if (!(nl = realloc(lock_fds, (capsv ? capsv * 2 : 16) * sizeof(*lock_fds))))
			return -1;
		lock_fds = nl;
		capsv = capsv ? capsv * 2 : 16;
	}
	memset(&sv[nsv], 0, sizeof(sv[nsv]));
	sv[nsv].f = f;
	sv[nsv].next_ms = 0;
	lock_fds[nsv] = f->lockfd;
	nsv++;
	return 0;
}

static void close_folder(struct folder *f);
static void run_due(struct served *s, const struct daemon_opts *o);
static int open_audit(struct folder *f, const struct audit_key *akey,
    const struct audit_opts *aopts, struct audit_resume *r, struct sbx_err *err);
static void serve_steps(struct served *s, const struct daemon_opts *o, int lazy);

/* The folder's database, reopened when sbxd had closed it (idle): 0, or
 * -1 when the folder is no longer served (folder_db_open said why). A
 * lazy folder (idle since the last run, daemon/idle.h) gets its log too,
 * and what the start does for any other folder: recovery, a rescan. */
static int
want_db(struct served *s, const struct daemon_opts *o)
{
	struct folder *f = s->f;
	struct audit_resume r = { .tail = f->tail_ok ? &f->tail : NULL,
	    .st = &f->audit_closed };
	struct sbx_err err;
	int rc;

	s->used_ms = mono_ms();
	if (!f->lazy)
		return folder_db_open(f);
	if (folder_db_open(f) < 0)
		return -1;
	f->lazy = 0;
	f->tail_ok = 0;
	rc = open_audit(f, log_key, log_opts, &r, &err);
	/* audit.jsonl is the file sbxd left (folder_db_open compared it with
	 * the record): a tail that differs is said, and the full read's
	 * checks decide. */
	if (r.tail && !r.used)
		logf_folder(f, "the audit tail in its idle record does not match "
		    ".sandbox/audit.jsonl (%s): the log was read in full", r.why);
	if (rc < 0)
		return folder_tampered(f, err.msg);
	if (o->verbose)
		logf_folder(f, "opened at its first event or timer (idle since the last run; "
		    "audit log %s)", r.used ? "resumed at its recorded tail" : "read in full");
	serve_steps(s, o, 1);
	return 0;
}

static int
by_use(const void *a, const void *b)
{
	int64_t x = sv[*(const int *)a].used_ms, y = sv[*(const int *)b].used_ms;

	return x < y ? -1 : x > y;
}

/* Closes the databases of idle folders beyond the SBXD_OPEN_DBS most
 * recently used ones, least recently used first. */
static void
trim_open(void)
{
	int i, n = 0, nc = 0, *cand;

	if (folder_db_count() <= SBXD_OPEN_DBS)
		return;
	for (i = 0; i < nsv; i++)
		n += sv[i].f->db && !sv[i].f->dead;
	if (n <= SBXD_OPEN_DBS || !(cand = malloc((size_t)n * sizeof(*cand))))
		return;
	for (i = 0; i < nsv; i++)
		if (sv[i].f->db && !sv[i].f->dead && folder_db_idle(sv[i].f))
			cand[nc++] = i;
	qsort(cand, (size_t)nc, sizeof(*cand), by_use);
	for (i = 0; i < nc && n > SBXD_OPEN_DBS; i++)
		if (folder_db_close(sv[cand[i]].f) == 0)
			n--;
	free(cand);
}

/* Drops the folder added last (it could not be watched). */
static void
unserve_last(void)
{
	size_t i;

	for (i = nwm; i > 0; i--)
		if (wm[i - 1].fi == nsv - 1) {
			(void)inotify_rm_watch(ifd, wm[i - 1].wd);
			wm_del(wm[i - 1].wd);
		}
	close_folder(sv[nsv - 1].f);
	folder_free(sv[nsv - 1].f);
	nsv--;
}

static int
any_running(void)
{
	int i, k = 0;

	for (i = 0; i < nsv; i++)
		k += folder_running(sv[i].f);
	return k;
}

/* An executor killed by a signal (SIGKILL) dropped nothing: its run's
 * cgroup goes here. */
static void
run_killed(pid_t pid)
{
	int i, k;

	for (i = 0; i < nsv; i++)
		for (k = 0; k < SBX_MAX_RUNNING; k++)
			if (sv[i].f->run[k].pid == pid) {
				exec_run_killed(sv[i].f->run[k].id);
				return;
			}
}

/* Reaps executors; a folder that had one gets its waiting requests
 * started (slots are per folder) in this wake. */
static void
reap(int flags, const struct daemon_opts *o)
{
	int i, status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, flags)) > 0) {
		if (exec_spare_reaped(pid, WIFSIGNALED(status)))
			continue;
		if (WIFSIGNALED(status))
			run_killed(pid);
		for (i = 0; i < nsv && !folder_reaped(sv[i].f, pid); i++)
			;
		if (i < nsv && o && !sv[i].f->dead) {
			folder_start_waiting(sv[i].f, o);
			sv[i].touched = 1;
		}
		if (flags == 0)
			break;
	}
}

/* Stops running commands (they are recorded as interrupted), bounded. */
static void
stop_all(void)
{
	int64_t until = mono_ms() + 10000;
	int i;

	exec_spare_stop();
	for (i = 0; i < nsv; i++)
		folder_signal_running(sv[i].f, SIGTERM);
	while (any_running() && mono_ms() < until) {
		reap(WNOHANG, NULL);
		usleep(20000);
	}
	for (i = 0; i < nsv; i++)
		folder_signal_running(sv[i].f, SIGKILL);
	while (any_running())
		reap(0, NULL);
}

/* What the start does for a folder whose database and log are open:
 * recovery, a rescan of its inboxes, its sweep and retention. */
static void
serve_steps(struct served *s, const struct daemon_opts *o, int lazy)
{
	struct folder *f = s->f;

	folder_recover(f, o, lazy);
	folder_start_waiting(f, o);
	folder_rescan(f, o);
	folder_sweep(f, o);
	/* Retention needs the policy (verified): only when there is finished
	 * output not pruned yet; else the next delivery schedules it. A lazy
	 * folder knows when it is due (its record; run_due runs it then). */
	if (!lazy && retention_next(f->db, -1) > 0)
		folder_prune(f);
	/* Signed at once when anything was logged. */
	if (audit_due(f->audit) != INT64_MAX)
		(void)audit_checkpoint(f->audit);
	s->touched = 1;
}

/* The rest of serving a folder that is open, with its audit log (its
 * watches added already: recovery and rescan come after them, so
 * nothing slips between). */
static void
serve_open(int fi, struct daemon_opts *o, int starting)
{
	/* served_add() may have moved the array (realloc): point at it again. */
	o->lock_fds = lock_fds;
	o->n_lock_fds = nsv;
	sv[fi].used_ms = mono_ms();
	serve_steps(&sv[fi], o, 0);
	sv[fi].originals_ms = now_ms();     /* kept originals: pruned once at start */
	/* Its first pass now, with the database open. At start no event is
	 * handled between two folders: the one served SBXD_OPEN_DBS before
	 * is the least recently used, closed when idle (else trim_open() in
	 * the loop closes it once it is). */
	run_due(&sv[fi], o);
	if (!starting)
		trim_open();
	else if (fi >= SBXD_OPEN_DBS)
		(void)folder_db_close(sv[fi - SBXD_OPEN_DBS].f);     /* when idle */
}

/* Watches, then serves a folder that is open. */
static int
serve(int fi, struct daemon_opts *o, int starting)
{
	if (watch_folder(fi) < 0)
		return -1;
	serve_open(fi, o, starting);
	return 0;
}

/* At start, a folder watched already whose idle record matched (it had
 * nothing to do since sbxd left it): served without opening its database
 * or log, which its first event or timer does (want_db). Nothing is
 * pending there: no expiry notice is due. */
static void
serve_lazy(int fi, struct daemon_opts *o)
{
	o->lock_fds = lock_fds;
	o->n_lock_fds = nsv;
	sv[fi].warned = now_ms() / 1000;
	sv[fi].originals_ms = now_ms();     /* kept originals: pruned once at start */
	run_due(&sv[fi], o);
}

/* Opens and locks a folder (not its database yet). NULL with err set. */
static struct folder *
lock_folder(const char *path, const char *config, struct sbx_err *err)
{
	struct folder *f = calloc(1, sizeof(*f));

	if (!f) {
		err_set(err, "%s: out of memory", path);
		return NULL;
	}
	if (folder_open(f, path, config, err) < 0) {
		folder_free(f);
		return NULL;
	}
	return f;
}

/* Opens a locked folder's database and audit log (open_audit). -1 with
 * err. */
static int
open_log(struct folder *f, const struct audit_key *akey, const struct audit_opts *aopts,
    struct sbx_err *err)
{
	char why[sizeof(err->msg)];

	if (folder_open_db(f, err) < 0) {
		snprintf(why, sizeof(why), "%s", err->msg);
		err_set(err, "%s: %s", f->path, why);
		return -1;
	}
	return open_audit(f, akey, aopts, NULL, err);
}

/* Opens the audit log of a folder whose database is open; daemon_start
 * is written with the first record this sbxd logs there (audit_defer): a
 * folder with nothing to do is not written at start. -1 with err. */
static int
open_audit(struct folder *f, const struct audit_key *akey, const struct audit_opts *aopts,
    struct audit_resume *r, struct sbx_err *err)
{
	cJSON *start = cJSON_CreateObject();
	char why[sizeof(err->msg)];

	if (!start) {
		err_set(err, "out of memory");
		goto fail;
	}
	if (!(f->audit = audit_open_resume(f->sbfd, f->db, akey, aopts, r, err))) {
		cJSON_Delete(start);
		goto fail;
	}
	cJSON_AddStringToObject(start, "version", SBX_VERSION);
	cJSON_AddNumberToObject(start, "pid", (double)getpid());
	cJSON_AddStringToObject(start, "key_id", akey->key_id);
	cJSON_AddStringToObject(start, "config", f->config);
	cJSON_AddStringToObject(start, "folder", f->path);
	/* When sbxd started, also for a folder first opened later (lazy). */
	cJSON_AddNumberToObject(start, "started", (double)started_ms);
	/* A log without a signed head yet gets its first record and head at
	 * once (serve() checkpoints): records a crash leaves unsigned are
	 * only ever accepted after a head. */
	if (audit_seq(f->audit) == 0)
		audit_append(f->audit, "daemon_start", NULL, NULL, "daemon", start);
	else
		audit_defer(f->audit, "daemon_start", start);
	return 0;
fail:
	snprintf(why, sizeof(why), "%s", err->msg);
	err_set(err, "%s: %s", f->path, why);
	return -1;
}

static struct folder *
open_folder(const char *path, const char *config, const struct audit_key *akey,
    const struct audit_opts *aopts, struct sbx_err *err)
{
	struct folder *f = lock_folder(path, config, err);

	if (f && open_log(f, akey, aopts, err) < 0) {
		folder_free(f);
		return NULL;
	}
	return f;
}

static void
close_folder(struct folder *f)
{
	audit_close(f->audit);
	f->audit = NULL;
	folder_close(f);
}

/*
 * SIGHUP: re-reads the config. Trusted keys and each folder's accepted
 * policy are read afresh anyway (per decision, per request); with --all,
 * the folder registry is read again and the folders prepared since start
 * being served, with the same steps as at start. Folders already served
 * go on untouched; one that cannot be opened is logged and skipped, and
 * sbxd keeps running.
 */
static void
reload(int all, const char *config, struct audit_key *akey, const struct audit_opts *aopts,
    struct daemon_opts *o)
{
	char (*listed)[4096] = NULL, real[PATH_MAX];
	struct sbx_err err;
	struct folder *f;
	int n, i, k, added = 0;

	if (!all) {
		logf_folder(NULL, "SIGHUP: reloaded; serving the %d folder(s) named on the "
		    "command line", nsv);
		return;
	}
	/* One read: a folder recorded meanwhile is in it or waits for the
	 * next SIGHUP, never half seen (registry.h). */
	if ((n = registry_read(config, &listed, &err)) < 0) {
		logf_folder(NULL, "SIGHUP: %s; still serving %d folder(s)", err.msg, nsv);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!realpath(listed[i], real)) {
			logf_folder(NULL, "SIGHUP: %s: %s; not served", listed[i], strerror(errno));
			continue;
		}
		for (k = 0; k < nsv && strcmp(sv[k].f->path, real) != 0; k++)
			;
		if (k < nsv)
			continue;
		if (!(f = open_folder(real, config, akey, aopts, &err))) {
			logf_folder(NULL, "SIGHUP: %s; not served", err.msg);
			continue;
		}
		if (served_add(f) < 0) {
			logf_folder(f, "SIGHUP: out of memory; not served");
			close_folder(f);
			folder_free(f);
			continue;
		}
		if (serve(nsv - 1, o, 0) < 0) {
			logf_folder(f, "SIGHUP: cannot watch %s/.sandbox: %s (check "
			    "fs.inotify.max_user_watches); not served", f->path, strerror(errno));
			unserve_last();
			o->lock_fds = lock_fds;
			o->n_lock_fds = nsv;
			continue;
		}
		logf_folder(f, "serving (config %s; added on SIGHUP)", config);
		added++;
	}
	logf_folder(NULL, "SIGHUP: reloaded %s/folders: %d recorded, %d added, serving %d",
	    config, n, added, nsv);
	free(listed);
}

/* A new entry of a drop box that is an ordinary file of one link: it is
 * being written in place, and its IN_CLOSE_WRITE comes when it is done.
 * (A symlink, a hard link, a directory or a fifo is handled at once: it
 * is never written, and is moved aside.) */
static int
being_written(struct folder *f, int kind, const char *name)
{
	static const char *const box[] = {
		[W_QUEUE] = "queue/new", [W_DECISIONS] = "decisions/new",
		[W_EVENTS] = "queue/events", [W_PROXY] = "proxy/events",
	};
	char path[PATH_MAX];
	struct stat st;

	if (xsnprintf(path, sizeof(path), "%s/%s", box[kind], name) < 0 ||
	    fstatat(f->sbfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 1;       /* gone already, or no such name: nothing to do */
	return S_ISREG(st.st_mode) && st.st_nlink == 1;
}

/* One inotify event. *overflow is set when the kernel dropped events. */
static void
dispatch(const struct inotify_event *ev, const struct daemon_opts *o, int *overflow)
{
	struct wmap *w;
	struct served *s;
	struct folder *f;
	const char *name = ev->len > 0 ? ev->name : "";

	if (ev->mask & IN_Q_OVERFLOW) {
		*overflow = 1;
		return;
	}
	if (!(w = wm_find(ev->wd)))
		return;
	s = &sv[w->fi];
	f = s->f;
	if (ev->mask & IN_IGNORED) {
		/* The watch is gone (its directory removed): is the tree ours? */
		wm_del(ev->wd);
		if (!f->dead)
			(void)folder_check(f);
		return;
	}
	if (f->dead)
		return;
	s->touched = 1;
	/* Once per wake, before anything of the folder is read or written. */
	if (!s->checked) {
		s->checked = 1;
		if (folder_check(f) < 0)
			return;
	}
	if (o->verbose)
		logf_folder(f, "event %s on %s", name, wkind_name[w->kind]);
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		(void)folder_check(f);
		return;
	}
	if (!*name || (w->kind <= W_PROXY && (ev->mask & IN_CREATE) && being_written(f,
	    w->kind, name)))
		return;
	if (w->kind <= W_DELIVERED && want_db(s, o) < 0)
		return;
	switch (w->kind) {
	case W_QUEUE:
		folder_request(f, o, name);
		break;
	case W_DECISIONS:
		folder_decision(f, o, name);
		break;
	case W_EVENTS:
		folder_event(f, o, name);
		break;
	case W_PROXY:
		folder_proxy_event(f, o, name);
		break;
	case W_DELIVERED:
		folder_delivered(f, name);
		break;
	case W_ORIGINALS:
		if (!s->originals_ms)
			s->originals_ms = now_ms() + ORIGINALS_DELAY_MS;
		break;
	case W_SANDBOX:
		if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
			(void)folder_check(f);
		else if (!strncmp(name, "policy", 6))
			f->due_prune = now_ms() / 1000;   /* keep_results_days may differ */
		break;
	}
}

/* Reads every event waiting (up to a bound per wake, so timers and
 * signals are not starved by a flood); 1 when more may wait. */
static int
read_events(const struct daemon_opts *o, int *overflow)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;
	int reads;

	for (reads = 0; reads < 16; reads++) {
		n = read(ifd, buf, sizeof(buf));
		if (n <= 0)
			return 0;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			dispatch(ev, o, overflow);
		}
	}
	return 1;
}

/* Every folder again, as at start: after an inotify overflow (events
 * were dropped) or to write results that could not be written. A folder
 * whose database is closed (idle, or lazy since the start) is opened
 * only when something waits in its drop boxes or pending/: nothing runs
 * or waits to start there, so with those empty the rescan, the sweep and
 * the start of waiting requests have nothing to do (what comes in after
 * the look is an event again: the queue was read). 1,000 idle folders
 * are not opened for one flooded folder. */
static void
rescan_all(const struct daemon_opts *o, int full)
{
	int i;

	for (i = 0; i < nsv; i++) {
		if (folder_check(sv[i].f) < 0)
			continue;
		if (!sv[i].f->db && !folder_inbox_busy(sv[i].f)) {
			sv[i].checked = 1;
			continue;
		}
		if (want_db(&sv[i], o) < 0)
			continue;
		if (full)
			folder_rescan(sv[i].f, o);
		folder_start_waiting(sv[i].f, o);
		folder_sweep(sv[i].f, o);
		sv[i].touched = sv[i].checked = 1;
	}
}

static int64_t
min_due(int64_t a, int64_t b)
{
	return b > 0 && b < a ? b : a;
}

/* Runs a folder's timed work that is due, then works out when it has
 * some next. */
static void
run_due(struct served *s, const struct daemon_opts *o)
{
	struct folder *f = s->f;
	int64_t now = now_ms(), mono = mono_ms(), a, next = INT64_MAX;
	int fired = 0;

	if (f->dead) {
		folder_sync_rejected(f);        /* forgets them: not ours to sync */
		s->next_ms = INT64_MAX;
		return;
	}
	/* What is due next is kept here, in memory: a folder whose database
	 * is closed reopens it only when some work that needs it is due. */
	if (((s->expiry && s->expiry * 1000 <= now) || !s->warned ||
	    (s->warn && s->warn * 1000 <= now) || (f->due_sweep && f->due_sweep * 1000 <= now) ||
	    (f->due_prune && f->due_prune * 1000 <= now) || (s->start_ms && s->start_ms <= now) ||
	    audit_due(f->audit) <= mono) && want_db(s, o) < 0) {
		/* Not served any more, or its database locked by another
		 * connection: then tried again at due_sweep (folder.h). */
		s->next_ms = f->dead || !f->due_sweep ? INT64_MAX : f->due_sweep * 1000;
		s->touched = s->checked = 0;
		return;
	}
	/* Reopened after a lock: what came meanwhile (its events were
	 * dropped while the database could not be read). */
	if (f->rescan && f->db) {
		f->rescan = 0;
		folder_rescan(f, o);
		f->due_sweep = now / 1000;
	}
	if (s->expiry && s->expiry * 1000 <= now) {
		folder_expire(f);
		fired = 1;
	}
	/* Expiry notices: at start, every one due; then those whose moment
	 * came since the last time. */
	if (!s->warned || (s->warn && s->warn * 1000 <= now)) {
		notify_expiring(f->db, f->path, s->warned, now / 1000);
		s->warned = now / 1000;
		fired = 1;
	}
	if (f->due_sweep && f->due_sweep * 1000 <= now)
		folder_sweep(f, o);
	if (f->due_prune && f->due_prune * 1000 <= now)
		folder_prune(f);
	if (s->originals_ms && s->originals_ms <= now) {
		originals_prune(f->sbfd, originals_cap);
		s->originals_ms = 0;
	}
	/* Approved requests that could not start with a slot free (their
	 * audit records could not be written: a full disk) are tried again. */
	if (s->start_ms && s->start_ms <= now)
		folder_start_waiting(f, o);
	s->start_ms = f->db && folder_running(f) < SBX_MAX_RUNNING && folder_waiting(f) > 0 ?
	    now + RETRY_MS : 0;
	/* Group commit: whatever this wake logged is made durable, and the
	 * notes of the files it rejected. */
	audit_tick(f->audit);
	folder_sync_rejected(f);
	if (audit_failures(f->audit) != s->audit_failed) {
		s->audit_failed = audit_failures(f->audit);
		logf_folder(f, "AUDIT LOG: %lld record(s) could not be written "
		    "(disk full or I/O error); check .sandbox/audit.jsonl",
		    (long long)s->audit_failed);
	}
	/* (A closed database has not changed: what was worked out holds.) */
	if ((s->touched || fired) && f->db) {
		s->expiry = folder_next_expiry(f);
		s->warn = notify_expiring_next(f->db, s->warned);
	}
	next = min_due(next, s->expiry * 1000);
	next = min_due(next, s->warn * 1000);
	next = min_due(next, f->due_sweep * 1000);
	next = min_due(next, f->due_prune * 1000);
	next = min_due(next, s->originals_ms);
	next = min_due(next, s->start_ms);
	if ((a = audit_due(f->audit)) != INT64_MAX)
		next = min_due(next, now + (a > mono ? a - mono : 0));
	/* Due again already (it failed: a busy database, a full disk): later,
	 * so that a failure never makes sbxd spin. */
	if (next <= now)
		next = now + AGAIN_MS;
	s->next_ms = next;
	s->touched = s->checked = 0;
	/* Between wakes a folder holds no cached pages (1,000 folders). */
	if (f->db)
		store_release_memory(f->db);
}

/* Arms the timer for the earliest due work (CLOCK_REALTIME, absolute:
 * expiries are wall-clock times; a clock change wakes sbxd to look
 * again), or disarms it when nothing is due. */
static void
arm_timer(int tfd, int64_t when)
{
	struct itimerspec its = { 0 };

	if (when != INT64_MAX) {
		its.it_value.tv_sec = when / 1000;
		its.it_value.tv_nsec = (when % 1000) * 1000000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0)
		logf_folder(NULL, "cannot arm the timer: %s", strerror(errno));
}

/* Raises the soft limit on open files to the hard one: each folder holds
 * a handful (its .sandbox, lock, database and audit log). */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The main loop: sleeps until an inotify event, a signal or the timer,
 * handles what came, then runs the due work of the folders that had
 * events or whose time came. Returns 1 when every folder was lost.
 */
static int
loop(int all, const char *config, struct audit_key *akey, const struct audit_opts *aopts,
    struct daemon_opts *o, int tfd)
{
	struct pollfd pfd[3] = {
		{ .fd = ifd, .events = POLLIN }, { .fd = sig_pipe[0], .events = POLLIN },
		{ .fd = tfd, .events = POLLIN },
	};
	int64_t retry_ms = 0, seen_failures = exec_result_failures(), earliest, now, armed = -1;
	int i, ndead, overflow, more = 0;
	char drain[64];
	uint64_t ticks;

	while (!got_stop) {
		if (got_hup) {
			got_hup = 0;
			reload(all, config, akey, aopts, o);
		}
		earliest = retry_ms ? retry_ms : INT64_MAX;
		for (i = 0; i < nsv; i++)
			if (!sv[i].f->dead && sv[i].next_ms < earliest)
				earliest = sv[i].next_ms;
		if (earliest != armed) {
			arm_timer(tfd, earliest);
			armed = earliest;
		}
		/* About to sleep (a command may be running): the WAL's
		 * checkpoint, never in a request's commit. */
		for (i = 0; !more && i < nsv; i++)
			folder_checkpoint(sv[i].f);
		exec_spare_keep();      /* ahead of the next run */
		if (!more && poll(pfd, 3, exec_spare_due_ms()) < 0 && errno != EINTR) {
			logf_folder(NULL, "poll: %s", strerror(errno));
			return 1;
		}
		while (read(sig_pipe[0], drain, sizeof(drain)) > 0)
			;
		if (read(tfd, &ticks, sizeof(ticks)) < 0 && errno == ECANCELED)
			armed = -1;     /* the clock was set: arm again */
		overflow = 0;
		more = read_events(o, &overflow);
		if (overflow) {
			logf_folder(NULL, "inotify queue overflow: rescanning every folder");
			rescan_all(o, 1);
		}
		if (got_child) {
			got_child = 0;
			reap(WNOHANG, o);
		}
		/* Results that could not be written (a full disk): retried from
		 * state.db, every RETRY_MS while some fail. */
		now = now_ms();
		if (exec_result_failures() != seen_failures && !retry_ms)
			retry_ms = now + RETRY_MS;
		if (retry_ms && retry_ms <= now) {
			seen_failures = exec_result_failures();
			rescan_all(o, 0);
			retry_ms = exec_result_failures() != seen_failures ? now + RETRY_MS : 0;
			seen_failures = exec_result_failures();
		}
		/* A queue directory refused as a symlink: check every folder,
		 * so the one whose tree was replaced stops being served. */
		if (folder_refusals())
			for (i = 0; i < nsv; i++)
				if (!sv[i].f->dead)
					(void)folder_check(sv[i].f);
		for (i = 0, ndead = 0; i < nsv; i++) {
			if (sv[i].touched || sv[i].next_ms <= now)
				run_due(&sv[i], o);
			ndead += sv[i].f->dead;
		}
		trim_open();
		if (nsv > 0 && ndead == nsv) {
			logf_folder(NULL, "no folder left to serve: stopping");
			return 1;
		}
	}
	return 0;
}

/* What the command line asks for. */
struct sbxd_args {
	char config[PATH_MAX];
	char **dirs;                /* -C DIR and operands, at most argc */
	int ndirs, all, verbose;
	struct audit_opts aopts;
	long long originals_cap;
};

/* -1 to go on, else the exit code (usage or setup error, --help). */
static int
parse_args(int argc, char **argv, struct sbxd_args *a, int *nenv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "config", required_argument, NULL, 'c' }, { "pass-env", required_argument, NULL, 'p' },
		{ "audit-segment-bytes", required_argument, NULL, 's' },
		{ "originals-cap", required_argument, NULL, 'o' }, { "all", no_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' }, { "dir", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, i;

	while ((ch = getopt_long(argc, argv, "C:c:hv", opts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("sbxd %s\n", SBX_VERSION);
			return 0;
		case 'c':
			if (xsnprintf(a->config, sizeof(a->config), "%s", optarg) < 0)
				return 2;
			break;
		case 'p':
			if (env_add(cmd_env, nenv, optarg) == -2) {
				fprintf(stderr, "sbxd: too many --pass-env names (at most %d "
				    "variables are passed, the defaults included)\n", MAX_ENV - 1);
				return 2;
			}
			break;
		case 's':
			a->aopts.segment_bytes = atol(optarg);
			if (a->aopts.segment_bytes < 4096) {
				fprintf(stderr, "sbxd: --audit-segment-bytes wants 4096 or more\n");
				return 2;
			}
			break;
		case 'o':
			a->originals_cap = atoll(optarg);
			if (a->originals_cap < 0) {
				fprintf(stderr, "sbxd: --originals-cap must be >= 0\n");
				return 2;
			}
			break;
		case 'a':
			a->all = 1;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case 'C':
			/* -C DIR, as in sbx: one more folder (operands come last) */
			a->dirs[a->ndirs++] = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (i = optind; i < argc; i++) {
		struct stat st;

		/* "sbxd help" and other words that are no folder: a usage error */
		if (stat(argv[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "sbxd: %s is not a folder%s\n", argv[i],
			    argv[i][0] && !strchr(argv[i], '/') ? " (sbxd takes folders, "
			    "not commands; sbxd --help)" : "");
			usage(stderr);
			return 2;
		}
		a->dirs[a->ndirs++] = argv[i];
	}
	if ((a->ndirs == 0) == !a->all) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The folders to serve at start: every DIR, or the registry (--all).
 * Returns how many (the registry's in *listed); -1 after saying why. */
static int
start_list(int all, int ndirs, const char *config, char (**listed)[4096])
{
	struct sbx_err err;
	int nall;

	if (!all) {
		*listed = NULL;
		return ndirs;
	}
	if ((nall = registry_read(config, listed, &err)) < 0) {
		fprintf(stderr, "sbxd: %s\n", err.msg);
		return -1;
	}
	if (nall == 0) {
		fprintf(stderr, "sbxd: no folders recorded in %s/folders; run `sbx init "
		    "DIR` first\n", config);
		return -1;
	}
	return nall;
}

/* Every folder named or recorded is served, or sbxd says which one it
 * cannot serve and stops: there is no cap on their number. All are
 * locked first (one served by another sbxd stops this one before it
 * serves any); -1 to go on, else the exit code. */
static int
lock_all(const struct sbxd_args *a, char (*listed)[4096], int nstart)
{
	struct sbx_err err;
	struct folder *f;
	int i;

	for (i = 0; i < nstart; i++) {
		if (!(f = lock_folder(a->all ? listed[i] : a->dirs[i], a->config, &err))) {
			fprintf(stderr, "sbxd: %s\n", err.msg);
			if (errno == EMFILE || errno == ENFILE)
				fprintf(stderr, "sbxd: out of file descriptors at folder %d of "
				    "%d (ulimit -n)\n", i + 1, nstart);
			return 2;
		}
		if (served_add(f) < 0) {
			fprintf(stderr, "sbxd: out of memory\n");
			return 1;
		}
	}
	return -1;
}

/* Then each is watched and served in turn: a folder whose idle record
 * matched (nothing to do since the last run) without opening its
 * database or log; any other is opened, recovered and rescanned, its
 * database closed again once idle: the start holds a few open at a
 * time. -1 when all are served, else the exit code. */
static int
serve_all(const struct sbxd_args *a, const struct audit_key *akey, struct daemon_opts *o)
{
	struct sbx_err err;
	char why[200];
	int i;

	for (i = 0; i < nsv; i++) {
		/* Watched first: whatever comes in after the record was
		 * compared is an event, and what came before changed it. */
		if (watch_folder(i) < 0) {
			fprintf(stderr, "sbxd: cannot watch %s/.sandbox: %s (check "
			    "fs.inotify.max_user_watches)\n", sv[i].f->path, strerror(errno));
			return 1;
		}
		if (folder_idle_load(sv[i].f, why, sizeof(why)) == 0) {
			serve_lazy(i, o);
			logf_folder(sv[i].f, "serving (config %s)", a->config);
			continue;
		}
		if (*why)
			logf_folder(sv[i].f, "opened in full: %s", why);
		if (open_log(sv[i].f, akey, &a->aopts, &err) < 0) {
			fprintf(stderr, "sbxd: %s\n", err.msg);
			if (errno == EMFILE || errno == ENFILE)
				fprintf(stderr, "sbxd: out of file descriptors at folder %d of "
				    "%d (ulimit -n)\n", i + 1, nsv);
			return 2;
		}
		serve_open(i, o, 1);
		logf_folder(sv[i].f, "serving (config %s)", a->config);
	}
	return -1;
}

int
main(int argc, char **argv)
{
	static char (*listed)[4096];
	static struct sbxd_args a;  /* static: dirs still reachable at exit (LeakSanitizer) */
	static struct audit_key akey;
	int nstart, tfd = -1, nenv = 0, i, rc, lost;
	struct sigaction sa = { .sa_handler = on_signal };
	struct daemon_opts o = { .env = cmd_env };
	struct sbx_err err;
	struct folder *f;

	a.originals_cap = SBX_ORIGINALS_CAP;
	if (config_dir(a.config, sizeof(a.config)) < 0) {
		fprintf(stderr, "sbxd: cannot find the config dir; set SBX_CONFIG_DIR\n");
		return 2;
	}
	atexit(free_env);
	for (i = 0; default_env[i]; i++)
		env_add(cmd_env, &nenv, default_env[i]);
	if (!(a.dirs = calloc((size_t)argc + 1, sizeof(*a.dirs)))) {
		fprintf(stderr, "sbxd: out of memory\n");
		return 1;
	}
	if ((rc = parse_args(argc, argv, &a, &nenv)) >= 0)
		return rc;
	o.verbose = a.verbose;
	if (sodium_init() < 0) {
		fprintf(stderr, "sbxd: libsodium failed to initialise\n");
		return 1;
	}
	/* sbxd holds the signing keys: a process of the same user (an
	 * approved command) may not trace it or read its memory, as
	 * ssh-agent does. Root still can. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		fprintf(stderr, "sbxd: cannot make itself undumpable: %s\n", strerror(errno));
		return 1;
	}
	if (audit_key_load(a.config, &akey, &err) < 0) {
		fprintf(stderr, "sbxd: %s\n", err.msg);
		return 1;
	}
	/* Notifications (CONFIG/notify.json): a bad file is a setup error. */
	if (notify_load(a.config, &err) < 0) {
		fprintf(stderr, "sbxd: %s\n", err.msg);
		return 2;
	}
	exec_set_result_key(akey.sk);
	started_ms = now_ms();
	log_key = &akey;
	log_opts = &a.aopts;
	if (idle_init(a.config, akey.sk) < 0)
		logf_folder(NULL, "cannot use %s/idle (%s): every folder is opened in full at "
		    "start", a.config, strerror(errno));
	exec_cgroups_init();
	raise_nofile();
	/* One SQLite connection per folder, so memory per connection counts:
	 * no bulk page-cache allocation up front (about 90 KB each), and the
	 * page caches of all folders together stay near SBXD_SQLITE_HEAP. */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	(void)sqlite3_soft_heap_limit64(SBXD_SQLITE_HEAP);
	if ((nstart = start_list(a.all, a.ndirs, a.config, &listed)) < 0)
		return 2;
	if ((rc = lock_all(&a, listed, nstart)) >= 0)
		return rc;
	o.lock_fds = lock_fds;
	o.n_lock_fds = nsv;
	originals_cap = a.originals_cap;
	free(listed);               /* 4 KB a folder, not needed again */
	listed = NULL;

	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0 ||
	    (ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0 ||
	    (tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		fprintf(stderr, "sbxd: cannot initialise inotify: %s\n", strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((rc = serve_all(&a, &akey, &o)) < 0) {
		lost = loop(a.all, a.config, &akey, &a.aopts, &o, tfd);
		rc = lost ? 1 : 0;
	}
	stop_all();
	for (i = 0; i < nsv; i++) {
		f = sv[i].f;
		/* A lost folder is left alone: closing its database cleanly could
		 * unlink files by path in the tree that replaced it. */
		if (f->dead) {
			logf_folder(f, "stopped (this folder was no longer served)");
			continue;
		}
		/* Nothing logged by this sbxd (daemon_start still held back):
		 * nothing is written at stop either. */
		if (f->audit && !audit_deferred(f->audit)) {
			if (folder_db_open(f) < 0) {
				logf_folder(f, "stopped (this folder was no longer served)");
				continue;
			}
			audit_log(f->audit, "daemon_stop", NULL, NULL, "daemon",
			    AU_S("reason", "signal"), AU_END);
		}
		/* Signed and synced, then its database closed the idle way, so
		 * the next start finds its record (daemon/idle.h), with the
		 * log's tail. */
		audit_settle(f->audit);
		f->tail_ok = audit_tail(f->audit, &f->tail) == 0;
		audit_close(f->audit);
		f->audit = NULL;
		if (f->db)
			(void)folder_db_close(f);
		close_folder(f);
		logf_folder(f, "stopped");
	}
	audit_key_wipe(&akey);
	return rc;
}
