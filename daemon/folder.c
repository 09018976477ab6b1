/*
 * folder.c - serving one folder: its lock, identity and log, and the
 * orchestration of its inboxes. The steps live in their own modules:
 *
 *   claim.c      queue/new -> pending/, a validated request
 *   request.c    a claimed request judged and recorded (its first state)
 *   decision.c   a signed decision verified and consumed
 *   run.c        started, opened, closed, expired, finished
 *   lifecycle.c  the (state, event) -> (state, effects) table they follow
 *   event.c      events for the audit log
 *   common/store/store.c  every SQL statement they run
 *
 * Rules:
 * - MUST move bad files aside (never execute them) and keep running.
 * - MUST mark a request that was running when sbxd died as interrupted,
 *   never run it again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"
#include "common/protocol/wake.h"
#include "common/redact/redact.h"
#include "common/store/db.h"
#include "common/store/retention.h"
#include "common/store/store.h"
#include "common/trust/accept.h"
#include "daemon/audit.h"
#include "daemon/exec.h"
#include "daemon/folder.h"
#include "daemon/idle.h"
#include "daemon/polcache.h"
#include "daemon/run.h"
#include "policy/policy.h"

void
logf_folder(const struct folder *f, const char *fmt, ...)
{
	char ts[32], msg[2048], *clean;
	const char *safe;
	time_t t = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The daemon's own log is scrubbed like the audit log, then shown
	 * as any agent text (display_tmp, one pass): one event, one line, so
	 * a file name with a newline or an escape sequence cannot fake a log
	 * line or drive the terminal. */
	clean = redact_str(msg, NULL);
	safe = display_tmp(clean ? clean : msg);
	fprintf(stderr, "sbxd %s [%s] %s\n", ts, f && f->path ? f->path : "-", safe);
	free(clean);
	fflush(stderr);
}

static int folder_identity(struct folder *f, int record, char *why, size_t whysz);

static int dbs_open;            /* databases open, all folders (folder_db_count) */

int
folder_db_count(void)
{
	return dbs_open;
}

int
folder_open(struct folder *f, const char *path, const char *config,
    struct sbx_err *err)
{
	char pidbuf[32] = "";
	struct sandbox_users u;
	struct stat st;
	ssize_t n;
	int locked, r;

	memset(f, 0, sizeof(*f));
	f->sbfd = f->lockfd = -1;
	f->keep_s = -1;
	/* 1,000 folders: the resolved path alone, not PATH_MAX bytes each. */
	if (!(f->path = realpath(path, NULL))) {
		err_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	f->config = config;
	if ((f->sbfd = sandbox_open(f->path, err)) < 0) {
		err_set(err, "%s has no usable .sandbox/ (run `sbx init %s`)", f->path, f->path);
		return -1;
	}
	if (fstat(f->sbfd, &st) < 0 || (r = sandbox_users_read(f->sbfd, &u, err)) < 0)
		goto fail;
	/* Handed over to us (deployment 3): the agent's group may enter
	 * .sandbox/, nobody else; else nobody but us may. */
	if (r == 1 && (u.daemon != geteuid() || st.st_gid != u.group || (st.st_mode & 027))) {
		err_set(err, "%s/.sandbox was handed over to uid %lu with group %lu (mode "
		    "0750); it is uid %lu's, group %lu, mode %03o, and this sbxd runs as uid %lu",
		    f->path, (unsigned long)u.daemon, (unsigned long)u.group,
		    (unsigned long)st.st_uid, (unsigned long)st.st_gid, st.st_mode & 0777,
		    (unsigned long)geteuid());
		goto fail;
	}
	if (r == 0 && (st.st_mode & 077)) {
		err_set(err, "%s/.sandbox is accessible by others (mode %03o); run "
		    "`chmod 700 %s/.sandbox`", f->path, st.st_mode & 0777, f->path);
		goto fail;
	}
	f->lockfd = openat(f->sbfd, "sbxd.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->lockfd < 0) {
		err_set(err, "cannot open %s/.sandbox/sbxd.lock: %s", f->path, strerror(errno));
		goto fail;
	}
	/* A hook's instant probe (daemon_serving) may hold a shared lock for
	 * a moment: try a few times before calling the folder taken. */
	for (n = 0; (locked = flock(f->lockfd, LOCK_EX | LOCK_NB) == 0) == 0 &&
	    errno == EWOULDBLOCK && n < 20; n++)
		usleep(10000);
	if (!locked) {
		char why[200], who[512];
		long stopped = sbxd_stopped_fd(f->lockfd, why, sizeof(why)), first;

		n = pread(f->lockfd, pidbuf, sizeof(pidbuf) - 1, 0);
		pidbuf[n > 0 ? n : 0] = '\0';
		pidbuf[strcspn(pidbuf, "\n")] = '\0';
		if (stopped > 0)
			err_set(err, "%s is held by sbxd pid %ld, which stopped serving it (%s) "
			    "and still runs; stop that sbxd first", f->path, stopped, why);
		else if (sbxd_holder(f->sbfd) == 0 &&
		    sbxd_lock_holders(f->lockfd, who, sizeof(who), &first) > 0)
			/* No sbxd serves it, yet its lock is held: named from
			 * /proc/locks (the pid in the file is only a note; the
			 * agent's user may hold a shared lock: deployment 3). */
			err_set(err, "%s/.sandbox/sbxd.lock is held by %s; an sbxd serving the "
			    "folder holds it, and so may any process that can read it: stop "
			    "that process first", f->path, who);
		else
			err_set(err, "%s is already served by another sbxd (pid %s); stop it first",
			    f->path, *pidbuf ? pidbuf : "unknown");
		goto fail;
	}
	n = snprintf(pidbuf, sizeof(pidbuf), "%ld\n", (long)getpid());
	/* Written, then cut to its length: a pid as long as the last one frees
	 * and allocates no block (1,000 folders at start). */
	if (pwrite(f->lockfd, pidbuf, (size_t)n, 0) != n || ftruncate(f->lockfd, n) < 0) {
		err_set(err, "cannot write %s/.sandbox/sbxd.lock", f->path);
		goto fail;
	}
	if (sbxd_hold(f->lockfd) < 0) {
		err_set(err, "cannot lock %s/.sandbox/sbxd.lock: %s", f->path, strerror(errno));
		goto fail;
	}
	for (int i = 0; queue_dirs[i]; i++)
		if (mkdirat(f->sbfd, queue_dirs[i], 0700) < 0 && errno != EEXIST) {
			err_set(err, "cannot create %s/.sandbox/%s: %s", f->path, queue_dirs[i],
			    strerror(errno));
			goto fail;
		}
	return 0;
fail:
	folder_close(f);
	return -1;
}

int
folder_open_db(struct folder *f, struct sbx_err *err)
{
	int on = 1;

	/* A record of an earlier run describes a state about to change. */
	idle_forget(f->path);
	if (!(f->db = db_open(f->path, 1, err)))
		return -1;
	dbs_open++;
	/* The WAL and its index stay beside state.db when sbxd closes it
	 * (folder_db_close): no file made and removed at every close and
	 * reopen, and folder_db_open() knows what it left (an empty WAL). */
	(void)sqlite3_file_control(f->db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
	db_wal_watch(f->db, &f->wal_pages);
	if (folder_identity(f, 1, NULL, 0) < 0) {
		err_set(err, "%s/.sandbox changed while sbxd opened it", f->path);
		db_close(f->db);
		f->db = NULL;
		dbs_open--;
		return -1;
	}
	return 0;
}

/* What folder_check() compares; the first entries are directories, the
 * last is state.db. */
static const char *const identity_names[] = {
	"queue", "queue/new", "queue/events", "queue/delivered", "decisions",
	"decisions/new", "pending", "results", "done", "work", "rejected", "state.db",
};

/* Records (record 1) or compares the identity of the tree; -1 and why
 * when it differs. */
static int
folder_identity(struct folder *f, int record, char *why, size_t whysz)
{
	struct stat st;
	size_t i, n = sizeof(identity_names) / sizeof(identity_names[0]);
	int fd;

	if (fstat(f->sbfd, &st) < 0 || st.st_nlink == 0) {
		snprintf(why, whysz, ".sandbox was removed");
		return -1;
	}
	if (record) {
		f->dev = st.st_dev;
		f->ino_sandbox = st.st_ino;
	}
	if (lstat(f->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, whysz, "the folder was removed or is no longer a directory");
		return -1;
	}
	if (record)
		f->ino_folder = st.st_ino;
	else if (st.st_ino != f->ino_folder) {
		snprintf(why, whysz, "the folder was replaced by another directory");
		return -1;
	}
	fd = openat(AT_FDCWD, f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatat(fd, ".sandbox", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_ino != f->ino_sandbox || st.st_dev != f->dev) {
		if (fd >= 0)
			close(fd);
		snprintf(why, whysz, ".sandbox was removed, moved or replaced");
		return -1;
	}
	close(fd);
	for (i = 0; i < n && i < sizeof(f->ino_sub) / sizeof(f->ino_sub[0]); i++) {
		if (fstatat_nf(f->sbfd, identity_names[i], &st) < 0 ||
		    (i + 1 < n ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
		    (!record && st.st_ino != f->ino_sub[i])) {
			snprintf(why, whysz, ".sandbox/%s was removed, replaced or is a symlink",
			    identity_names[i]);
			return -1;
		}
		if (record)
			f->ino_sub[i] = st.st_ino;
	}
	return 0;
}

/* The folder is no longer served: said, and its hooks answer at once
 * instead of waiting for an sbxd that no longer serves them (the lock
 * they test goes, with the reason); no other sbxd takes the folder
 * while this one lives (queue.h). */
static void
folder_stop(struct folder *f, const char *why)
{
	f->dead = 1;
	if (sbxd_release(f->lockfd, why) < 0)
		logf_folder(f, "cannot release sbxd.lock: %s; hooks wait out their deadline",
		    strerror(errno));
}

int
folder_check(struct folder *f)
{
	char why[160];

	if (f->dead)
		return -1;
	if (folder_identity(f, 0, why, sizeof(why)) == 0)
		return 0;
	logf_folder(f, "STOPPED SERVING THIS FOLDER: %s (by `git stash -u`, `git clean`, "
	    "rm or mv?). sbxd no longer reads or writes it, so requests there are not "
	    "processed and their records are not kept. Check it (`sbx doctor`), restore "
	    "or re-run `sbx init`, then restart sbxd.", why);
	folder_stop(f, why);
	return -1;
}

/* A reopened database that is not the one sbxd closed: said, and the
 * folder is no longer served. Always -1. */
static int
db_tampered(struct folder *f, sqlite3 *db, const char *why)
{
	db_close_abandoned(db);
	logf_folder(f, "TAMPERING: STOPPED SERVING THIS FOLDER: while sbxd had its database "
	    "closed (the folder was idle), %s. sbxd will not use a database it did not "
	    "leave: it no longer reads or writes this folder, so requests there are not "
	    "processed. Check it (`sbx doctor`, `sbx audit verify`), restore "
	    ".sandbox/state.db or re-run `sbx init`, then restart sbxd.", why);
	folder_stop(f, why);
	return -1;
}

/* The reopened database could not be read because another connection
 * holds a lock on it (SQLITE_BUSY/SQLITE_LOCKED): closed again, and the
 * reopen tried again SBX_REOPEN_RETRY later, the folder rescanned then
 * (the event that wanted it is not lost). A lock is no sign of
 * tampering (the file's identity and contents were checked, or will
 * be at the next try); it only delays. Always -1, f->dead untouched. */
static int
db_locked(struct folder *f, sqlite3 *db)
{
	int64_t now = now_ms() / 1000;

	db_close_abandoned(db);
	if (!f->locked_since) {
		f->locked_since = now;
		logf_folder(f, "its database is locked by another connection (a reader?); "
		    "trying again every %d s meanwhile", SBX_REOPEN_RETRY);
	}
	f->rescan = 1;
	if (!f->due_sweep || f->due_sweep > now + SBX_REOPEN_RETRY)
		f->due_sweep = now + SBX_REOPEN_RETRY;
	return -1;
}

/* The last SQLite call on db failed on another connection's lock. */
static int
db_busy(sqlite3 *db)
{
	int e = sqlite3_errcode(db);

	return e == SQLITE_BUSY || e == SQLITE_LOCKED;
}

/* The same file, untouched since sbxd closed it: a write, a rename, a
 * chmod or a new link each change its ctime, which no one can set. */
static int
db_unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	    a->st_mode == b->st_mode && a->st_uid == b->st_uid && a->st_nlink == b->st_nlink &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* state.db-wal and -shm beside a closed database: absent, or regular files
 * of one link, the WAL empty (what a reader, sbx, leaves). NULL when so,
 * else what is wrong. */
static const char *
db_sides_bad(struct folder *f)
{
	struct stat st;

	if (fstatat_nf(f->sbfd, "state.db-wal", &st) == 0) {
		if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
			return "state.db-wal was made a link or not a regular file";
		if (st.st_size != 0)
			return "a state.db-wal with frames appeared (sbxd left it empty): "
			    "its pages would have been read into the database";
	} else if (errno != ENOENT) {
		return "state.db-wal cannot be checked (a directory on its path was replaced)";
	}
	if (fstatat_nf(f->sbfd, "state.db-shm", &st) == 0) {
		if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
			return "state.db-shm was made a link or not a regular file";
	} else if (errno != ENOENT) {
		return "state.db-shm cannot be checked (a directory on its path was replaced)";
	}
	return NULL;
}

/* 1 when .sandbox/DIR holds a name sbxd would handle (not a dot name),
 * 0 when none, -1 when it cannot be read. */
static int
box_busy(struct folder *f, const char *dir)
{
	struct dirent *de;
	DIR *d;
	int busy = 0;

	if (!(d = opendir_at(f->sbfd, dir)))
		return -1;
	while (!busy && (de = readdir(d)))
		busy = de->d_name[0] != '.';
	closedir(d);
	return busy;
}

/* The same directory, no entry added, removed or renamed since. */
static int
dir_unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * The idle record (daemon/idle.h) of a folder whose database was just
 * closed: what the next start compares, written only when the folder has
 * nothing waiting (its drop boxes and pending/ empty: each stat'ed before
 * it is read, so an entry that comes in between changes what was
 * recorded); otherwise an older record is removed.
 */
static void
idle_record(struct folder *f, const struct stat *db, int64_t seen)
{
	struct idle_rec r;
	size_t i;

	memset(&r, 0, sizeof(r));   /* padding too: the record is hashed whole */
	r.dev = f->dev;
	r.ino_folder = f->ino_folder;
	r.ino_sandbox = f->ino_sandbox;
	memcpy(r.ino_sub, f->ino_sub, sizeof(r.ino_sub));
	r.db = *db;
	r.seen = seen;
	r.due_prune = f->due_prune;
	r.keep_s = f->keep_s;
	r.cap_b = f->cap_b;
	/* The log's tail, for the next run's first event (taken at a clean
	 * stop when the log is closed already). */
	if (f->audit)
		r.tail_ok = audit_tail(f->audit, &r.tail) == 0;
	else if (f->tail_ok)
		r.tail = f->tail, r.tail_ok = 1;
	if (!r.tail_ok)
		memset(&r.tail, 0, sizeof(r.tail));
	if (fstatat_nf(f->sbfd, "audit.jsonl", &r.audit) < 0)
		goto forget;
	if (fstatat_nf(f->sbfd, SBX_ACCEPTED_FILE, &r.accepted) < 0) {
		if (errno != ENOENT)
			goto forget;
		memset(&r.accepted, 0, sizeof(r.accepted));
	}
	for (i = 0; i < IDLE_BOXES; i++)
		if (fstatat_nf(f->sbfd, idle_boxes[i], &r.boxes[i]) < 0)
			goto forget;
	for (i = 0; i < IDLE_BOXES; i++)
		if (box_busy(f, idle_boxes[i]) != 0)
			goto forget;
	if (idle_save(f->path, &r) == 0)
		return;
forget:
	idle_forget(f->path);
}

int
folder_inbox_busy(struct folder *f)
{
	size_t i;

	/* idle_boxes but queue/wake: a FIFO there is retention's to sweep. */
	for (i = 0; i < IDLE_BOXES; i++)
		if (strcmp(idle_boxes[i], "queue/wake") != 0 && box_busy(f, idle_boxes[i]) != 0)
			return 1;
	return 0;
}

int
folder_idle_load(struct folder *f, char *why, size_t whysz)
{
	struct idle_rec r;
	struct stat st;
	const char *bad = NULL;
	size_t i;
	int rc;

	*why = '\0';
	if ((rc = idle_load(f->path, &r)) < 0) {
		if (rc == -2)
			snprintf(why, whysz, "its idle record in sbxd's config is damaged, not "
			    "sbxd's, or of another version");
		return -1;
	}
	if (folder_identity(f, 1, why, whysz) < 0)
		return -1;
	if (f->dev != r.dev || f->ino_folder != r.ino_folder || f->ino_sandbox != r.ino_sandbox ||
	    memcmp(f->ino_sub, r.ino_sub, sizeof(r.ino_sub)) != 0)
		bad = "the folder, .sandbox or a directory of it was replaced";
	else if (fstatat_nf(f->sbfd, "state.db", &st) < 0 || !db_unchanged(&st, &r.db))
		bad = "state.db was written, replaced or linked";
	else if (!(bad = db_sides_bad(f)) && (fstatat_nf(f->sbfd, "audit.jsonl", &st) < 0 ||
	    !db_unchanged(&st, &r.audit)))
		bad = "audit.jsonl was written, replaced or linked";
	else if (!bad && (fstatat_nf(f->sbfd, SBX_ACCEPTED_FILE, &st) < 0 ?
	    errno != ENOENT || r.accepted.st_ino != 0 :
	    r.accepted.st_ino == 0 || !db_unchanged(&st, &r.accepted)))
		bad = "the policy was accepted again";
	for (i = 0; !bad && i < IDLE_BOXES; i++)
		if (fstatat_nf(f->sbfd, idle_boxes[i], &st) < 0 || !dir_unchanged(&st, &r.boxes[i]))
			bad = "a drop box or pending/ changed (something came in)";
	if (!bad && r.due_prune && r.due_prune <= now_ms() / 1000)
		bad = "retention is due";
	if (bad) {
		snprintf(why, whysz, "%s since sbxd left it", bad);
		return -1;
	}
	f->db_closed = r.db;
	f->seen_closed = r.seen;
	f->audit_closed = r.audit;
	f->due_prune = r.due_prune;
	f->keep_s = r.keep_s;
	f->cap_b = r.cap_b;
	f->tail = r.tail;
	f->tail_ok = r.tail_ok != 0;
	f->lazy = 1;
	return 0;
}

int
folder_tampered(struct folder *f, const char *why)
{
	sqlite3 *db = f->db;

	if (db) {
		f->db = NULL;
		dbs_open--;
	}
	return db_tampered(f, db, why);
}

int
folder_db_idle(struct folder *f)
{
	return f->db && !f->dead && folder_running(f) == 0 && sqlite3_get_autocommit(f->db) &&
	    audit_idle(f->audit) && folder_waiting(f) == 0;
}

int
folder_db_close(struct folder *f)
{
	char why[8];
	int64_t seen = -1;
	struct stat st;

	if (!folder_db_idle(f) || store_policy_seen(f->db, &seen) < 0 ||
	    audit_detach(f->audit) < 0)
		return -1;
	/* What reopen will compare with is taken while the file is still
	 * open, and only when the path still names it: a copy put in its
	 * place after the checkpoint is never recorded as sbxd's own. */
	if (db_checkpoint_idle(f->db) < 0 || fstatat_nf(f->sbfd, "state.db", &st) < 0 ||
	    db_moved(f->db) != 0) {
		/* Still open (a reader holds frames back, or the path names
		 * another file): sbxd keeps using its own, as before. */
		(void)audit_attach(f->audit, f->db, why, sizeof(why));
		return -1;
	}
	db_close(f->db);
	f->db = NULL;
	dbs_open--;
	polcache_drop(f);
	f->seen_closed = seen;
	f->db_closed = st;
	idle_record(f, &st, seen);
	return 0;
}

int
folder_db_open(struct folder *f)
{
	char why[240];
	struct sbx_err err;
	struct stat st;
	const char *bad;
	int64_t seen = -1;
	int on = 1;
	sqlite3 *db;

	if (f->db)
		return 0;
	if (f->dead)
		return -1;
	/* Before SQLite reads anything: the tree, the file and beside it. */
	if (folder_identity(f, 0, why, sizeof(why)) < 0)
		return db_tampered(f, NULL, why);
	if (fstatat_nf(f->sbfd, "state.db", &st) < 0 || !db_unchanged(&st, &f->db_closed))
		return db_tampered(f, NULL, ".sandbox/state.db was written, replaced, moved, "
		    "linked or removed");
	if ((bad = db_sides_bad(f)))
		return db_tampered(f, NULL, bad);
	/* Never opened in this run: its log, as the record has it, too. */
	if (f->lazy && (fstatat_nf(f->sbfd, "audit.jsonl", &st) < 0 ||
	    !db_unchanged(&st, &f->audit_closed)))
		return db_tampered(f, NULL, ".sandbox/audit.jsonl was written, replaced, moved, "
		    "linked or removed");
	if (!(db = db_reopen(f->path, &err))) {
		if (errno == EBUSY)
			return db_locked(f, NULL);
		logf_folder(f, "STOPPED SERVING THIS FOLDER: cannot reopen its database: %s",
		    err.msg);
		folder_stop(f, "sbxd cannot reopen its database");
		return -1;
	}
	(void)sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
	/* (Until it is checked, a lock held by another connection waits
	 * briefly, db_reopen, never seconds with every other folder
	 * waiting: then it is tried again later, db_locked.)
	 * What SQLite opened by path is the file checked above, through the
	 * same directories (a swap between the two is caught here). */
	if (db_moved(db) != 0 || fstatat_nf(f->sbfd, "state.db", &st) < 0 ||
	    st.st_ino != f->db_closed.st_ino || st.st_dev != f->db_closed.st_dev)
		return db_tampered(f, db, ".sandbox/state.db was replaced as sbxd opened it");
	if (folder_identity(f, 0, why, sizeof(why)) < 0)
		return db_tampered(f, db, why);
	/* Inside: the newest policy acceptance and the signed audit head sbxd
	 * left (an older copy of the same file holds older ones). */
	if (store_policy_seen(db, &seen) < 0 && db_busy(db))
		return db_locked(f, db);
	if (seen != f->seen_closed) {
		snprintf(why, sizeof(why), "state.db remembers another policy acceptance "
		    "(%lld) than the one sbxd left (%lld)", (long long)seen,
		    (long long)f->seen_closed);
		return db_tampered(f, db, why);
	}
	if (audit_attach(f->audit, db, why, sizeof(why)) < 0)
		return db_busy(db) ? db_locked(f, db) : db_tampered(f, db, why);
	/* Its record goes before anything writes the database again. */
	idle_forget(f->path);
	sqlite3_busy_timeout(db, SBX_DB_BUSY_MS);
	if (f->locked_since) {
		logf_folder(f, "its database is no longer locked (after %lld s): served again",
		    (long long)(now_ms() / 1000 - f->locked_since));
		f->locked_since = 0;
	}
	f->db = db;
	db_wal_watch(f->db, &f->wal_pages);
	dbs_open++;
	return 0;
}

void
folder_checkpoint(struct folder *f)
{
	if (!f->db || f->dead || f->wal_pages < SBX_WAL_PAGES || !sqlite3_get_autocommit(f->db))
		return;
	/* What it could not copy (a reader) is tried at a later sleep. */
	(void)db_checkpoint_passive(f->db);
	f->wal_pages = 0;
}

void
folder_close(struct folder *f)
{
	folder_sync_rejected(f);
	free(f->notes);
	f->notes = NULL;
	f->cap_notes = 0;
	/* The WAL left empty (it stays: SQLITE_FCNTL_PERSIST_WAL): the next
	 * start has no frames to copy back, and writes nothing. */
	polcache_drop(f);
	if (f->db && db_close_idle(f->db) < 0)
		db_close(f->db);
	if (f->db)
		dbs_open--;
	if (f->lockfd >= 0)
		close(f->lockfd);
	if (f->sbfd >= 0)
		close(f->sbfd);
	f->db = NULL;
	f->lockfd = f->sbfd = -1;
}

void
folder_free(struct folder *f)
{
	if (!f)
		return;
	folder_close(f);
	free(f->path);
	free(f);
}

int
folder_refusals(void)
{
	static long seen;
	char last[PATH_MAX];
	long n = nf_refusals_count(last, sizeof(last));

	if (n == seen)
		return 0;
	seen = n;
	logf_folder(NULL, "TAMPERING: %s (in a folder's .sandbox) is a symlink or not a "
	    "directory: sbxd refused to follow it; nothing was read or written through it",
	    last);
	return 1;
}

int
folder_gone_quietly(struct folder *f, const char *dir, const char *name)
{
	struct stat st;

	if (fstatat_nf(f->sbfd, dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 1;
	logf_folder(f, "cannot read %s/%s: .sandbox/%s is missing or not a directory", dir,
	    name, dir);
	audit_log(f->audit, "file_rejected", NULL, NULL, "daemon", AU_S("dir", dir),
	    AU_S("name", name), AU_S("why", "its directory is missing"), AU_END);
	(void)folder_check(f);
	return 0;
}

void
folder_reject(struct folder *f, const char *dir, const char *name, const char *why)
{
	char from[512], to[512], note[600], id[SBX_ID_LEN + 1];
	int64_t t = now_ms();

	logf_folder(f, "rejected %s/%s: %s", dir, name, why);
	audit_log(f->audit, "file_rejected", valid_request_name(name, id) ||
	    valid_decision_name(name, id) ? id : NULL, NULL, "daemon", AU_S("dir", dir),
	    AU_S("name", name), AU_S("why", why), AU_END);
	if (xsnprintf(from, sizeof(from), "%s/%s", dir, name) < 0 ||
	    xsnprintf(to, sizeof(to), "rejected/%lld-%s", (long long)t, name) < 0)
		return;
	/* renameat moves a symlink or a directory itself, never its target. */
	if (renameat_nf(f->sbfd, from, to, 0) < 0) {
		logf_folder(f, "cannot move %s aside (%s); left in place", from, strerror(errno));
		return;
	}
	snprintf(note, sizeof(note), "%s\n", why);
	snprintf(to, sizeof(to), "rejected/%lld-%s.why", (long long)t, name);
	/* No sync of its own: a flood of junk files would cost two each.
	 * The pass's folder_sync_rejected() makes it durable (and its record
	 * is in the audit log, synced at the end of the pass too). */
	if (write_atomic(f->sbfd, "work", to, note, strlen(note), 0600,
	    WA_NOREPLACE | WA_NOSYNC) < 0)
		return;
	if (f->n_notes == f->cap_notes) {
		size_t cap = f->cap_notes ? f->cap_notes * 2 : 16;
		char **nn = realloc(f->notes, cap * sizeof(*nn));

		if (nn) {
			f->notes = nn;
			f->cap_notes = cap;
		}
	}
	/* No room to remember it: synced now, never lost. */
	if (f->n_notes == f->cap_notes || !(f->notes[f->n_notes] = strdup(to))) {
		(void)fsync_at(f->sbfd, to, 0);
		(void)fsync_at(f->sbfd, "rejected", O_DIRECTORY);
		return;
	}
	f->n_notes++;
}

void
folder_sync_rejected(struct folder *f)
{
	size_t i;
	int failed = 0;

	if (f->n_notes == 0)
		return;
	/* A tree sbxd no longer serves is not touched again. */
	for (i = 0; i < f->n_notes; i++) {
		if (!f->dead && fsync_at(f->sbfd, f->notes[i], 0) < 0 && errno != ENOENT)
			failed++;
		free(f->notes[i]);
	}
	if (!f->dead && fsync_at(f->sbfd, "rejected", O_DIRECTORY) < 0)
		failed++;
	if (failed)
		logf_folder(f, "cannot sync %zu rejection note(s) in rejected/: %s", f->n_notes,
		    strerror(errno));
	f->n_notes = 0;
}

/*
 * A request stays in pending/ until its result was handed to the agent
 * (a receipt in queue/delivered/) or has waited SBX_KEEP_UNDELIVERED;
 * then it moves to done/. So the hook only ever scans pending/ and
 * queue/new, which stay small, never the growing results/.
 * SEEN: sbxd saw the receipt made (its inotify event). The agent can
 * delete a receipt (queue/ is its drop box); one gone by now was made
 * all the same, so the result counts as delivered: a later identical
 * call never finds it again. An approved result (a one-time allowance)
 * is confirmed first, to the receipt there now or to nobody
 * (result_confirm): at most one hook ever allows on it.
 */
static int64_t
sweep_one(struct folder *f, const char *id, int64_t now, int seen)
{
	char from[SBX_QUEUE_PATH_MAX], to[SBX_QUEUE_PATH_MAX], res[SBX_QUEUE_PATH_MAX];
	char rcpt[SBX_QUEUE_PATH_MAX], nonce[SBX_RECEIPT_LEN + 1];
	struct stat st;
	int delivered, i, moved, there, fd;

	/* The hook answers as soon as the result is durable, which can be
	 * before sbxd reaps the executor: the move then waits for the reap
	 * (folder_reaped), so the log reads exec_finished, result_delivered. */
	for (i = 0; i < SBX_MAX_RUNNING; i++)
		if (f->run[i].pid && !strcmp(f->run[i].id, id))
			return 0;
	/* No result yet: it cannot be due before a day from now. */
	snprintf(res, sizeof(res), "%s", queue_path(QP_RESULT, id).s);
	if (fstatat_nf(f->sbfd, res, &st) < 0)
		return now + SBX_KEEP_UNDELIVERED;
	snprintf(rcpt, sizeof(rcpt), "%s", queue_path(QP_DELIVERED, id).s);
	there = exists_nf(f->sbfd, rcpt);
	delivered = there || seen;
	if (!delivered && now - (int64_t)st.st_mtime < SBX_KEEP_UNDELIVERED)
		return (int64_t)st.st_mtime + SBX_KEEP_UNDELIVERED;
	/* Unclaimed for a day: sbxd makes the receipt (empty: nobody's), so
	 * a hook that read pending/ before the move cannot claim it now. */
	if (!delivered) {
		if ((fd = openat_nf(f->sbfd, rcpt, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0600)) >= 0)
			close(fd);
		else if (errno == EEXIST)
			delivered = there = 1;      /* a hook claimed it just now */
		else
			logf_folder(f, "request %s: cannot make its receipt in queue/delivered: "
			    "%s", id, strerror(errno));
	}
	if (result_confirm(f->sbfd, id, nonce, sizeof(nonce)) < 0) {
		logf_folder(f, "request %s: cannot confirm its delivery in results/: %s", id,
		    strerror(errno));
		return now + 1;
	}
	if (!there && seen)
		logf_folder(f, "TAMPERING: the delivery receipt of request %s was removed from "
		    "queue/delivered before sbxd took it in; its result counts as delivered%s", id,
		    nonce[0] ? "" : " (to nobody, if it was an approval)");
	snprintf(from, sizeof(from), "%s", queue_path(QP_PENDING, id).s);
	snprintf(to, sizeof(to), "%s", queue_path(QP_DONE, id).s);
	/* Never over done/ID.json: a request already filed there is back in
	 * pending/ only as a copy put there (a second result_delivered would
	 * be a false record); it is moved aside. */
	if ((moved = renameat_nf(f->sbfd, from, to, RENAME_NOREPLACE)) < 0 && errno == EEXIST) {
		snprintf(from, sizeof(from), "%s.json", id);
		folder_reject(f, "pending", from, "a copy of a request already delivered and "
		    "filed in done/ (put back into pending/)");
		return 0;
	}
	if (moved == 0) {
		retention_delivered(f->db, f->sbfd, id, now);
		audit_log(f->audit, delivered ? "result_delivered" : "result_unclaimed",
		    id, NULL, delivered ? "hook" : "daemon",
		    AU_I("result_time", (int64_t)st.st_mtime), AU_END);
		/* The receipt stays (retention removes it with the output): a
		 * hook that read pending/ before this move and claims now finds
		 * it, so one result is never delivered twice. */
		/* Its output is due for pruning keep_results_days from now, and
		 * the size cap is looked at a second later (deliveries in between
		 * share one look). */
		if (f->keep_s >= 0 && (!f->due_prune || now + f->keep_s < f->due_prune))
			f->due_prune = now + f->keep_s;
		else if (f->keep_s < 0)
			f->due_prune = now;
		if (f->cap_b > 0 && (!f->due_prune || now + SBX_PRUNE_CAP_DELAY < f->due_prune))
			f->due_prune = now + SBX_PRUNE_CAP_DELAY;
	}
	return 0;
}

/*
 * Policy rollback: the acceptance's signed time only moves forward. sbxd
 * remembers (state.db, policy_seen) the newest acceptance it used, and
 * refuses an older one: an old policy.json put back with its old, validly
 * signed policy.accepted. 0 fine, -1 refused (msg says why).
 */
static int
policy_not_rolled_back(struct folder *f, char *msg, size_t msgsz)
{
	int64_t t = -1, seen = -1;
	size_t len;
	char *text = read_untrusted(f->sbfd, SBX_ACCEPTED_FILE, 64 * 1024, &len, NULL);
	cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;

	free(text);
	(void)json_int(doc, "time", &t);
	cJSON_Delete(doc);
	if (t < 0)
		return 0;       /* policy_load_accepted has refused it already */
	if (store_policy_seen(f->db, &seen) < 0) {
		logf_folder(f, "database: %s", sqlite3_errmsg(f->db));
		return -1;
	}
	if (t < seen) {
		snprintf(msg, msgsz, "policy rollback: this policy was accepted at %lld, before "
		    "the one sbxd already used (accepted at %lld); an old policy.json and "
		    "policy.accepted were put back. Accept the policy again (`sbx policy "
		    "accept`) if this is intended", (long long)t, (long long)seen);
		return -1;
	}
	if (t > seen)
		(void)store_policy_seen_set(f->db, t);
	return 0;
}

struct policy *
folder_policy(struct folder *f, struct policy_error *perr)
{
	struct policy *p = polcache_get(f);
	struct polcache *snap;
	unsigned char h[32] = { 0 };
	size_t len;
	char *text;

	if (p)
		return p;
	snap = polcache_begin(f);
	/* Through the .sandbox sbxd holds, as the snapshot: never a second
	 * lookup of the path (the folder may be the agent's: deployment 3). */
	p = policy_load_accepted_at(f->sbfd, f->path, f->config, perr->msg, sizeof(perr->msg));
	text = read_untrusted(f->sbfd, "policy.json", 4 << 20, &len, NULL);

	if (p && policy_not_rolled_back(f, perr->msg, sizeof(perr->msg)) < 0) {
		policy_free(p);
		p = NULL;
		logf_folder(f, "%s", perr->msg);
	}

	/* The audit log records each policy version once: by its hash. */
	if (text)
		crypto_generichash(h, sizeof(h), (unsigned char *)text, len, NULL, 0);
	free(text);
	if (audit_policy_changed(f->audit, h))
		audit_log(f->audit, "policy_loaded", NULL, NULL, "daemon",
		    AU_H("hash", h), AU_B("valid", p != NULL),
		    AU_S("error", p ? NULL : perr->msg), AU_END);
	return polcache_end(f, snap, p);
}

static void
scan(struct folder *f, const struct daemon_opts *o, const char *dir,
    void (*fn)(struct folder *, const struct daemon_opts *, const char *))
{
	struct dirent *de;
	char **names = NULL, **nn;
	size_t n = 0, cap = 0, i;
	DIR *d;

	if (!(d = opendir_at(f->sbfd, dir))) {
		logf_folder(f, "cannot read %s: %s", dir, strerror(errno));
		return;
	}
	/* Collect first: the handlers rename entries out of this directory. */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if (!(nn = realloc(names, cap * sizeof(*names))))
				break;
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		fn(f, o, names[i]);
		free(names[i]);
	}
	free(names);
}

static void
sweep_entry(struct folder *f, const struct daemon_opts *o, const char *name)
{
	char id[SBX_ID_LEN + 1];
	int64_t due;

	(void)o;
	if (valid_request_name(name, id)) {
		run_repair(f, id);
		due = sweep_one(f, id, now_ms() / 1000, 0);
		if (due && (!f->due_sweep || due < f->due_sweep))
			f->due_sweep = due;
	}
}

void
folder_delivered(struct folder *f, const char *name)
{
	int64_t due;

	/* A receipt for a request still in pending/: move it to done/ now. */
	if (!valid_id(name))
		return;
	if (exists_nf(f->sbfd, queue_path(QP_PENDING, name).s) &&
	    (due = sweep_one(f, name, now_ms() / 1000, 1)) &&
	    (!f->due_sweep || due < f->due_sweep))
		f->due_sweep = due;
}

void
folder_rescan(struct folder *f, const struct daemon_opts *o)
{
	scan(f, o, "queue/new", folder_request);
	scan(f, o, "decisions/new", folder_decision);
	scan(f, o, "queue/events", folder_event);
	/* sbx-proxy's connection records: its own drop box (watched like the
	 * others), never the agent's. */
	scan(f, o, "proxy/events", folder_proxy_event);
}

void
folder_sweep(struct folder *f, const struct daemon_opts *o)
{
	f->due_sweep = 0;
	scan(f, o, "pending", sweep_entry);
}

/*
 * Retention (common/store/retention.h): one bounded batch of finished, delivered
 * requests whose output is older than limits.keep_results_days, or the
 * oldest past limits.keep_results_mb, and the wake FIFOs no hook waits
 * on (common/protocol/wake.h). Nothing is pruned while the policy is
 * invalid. The next pass is due soon (SBX_PRUNE_CAP_DELAY) only after a
 * pass that made progress and left more: never in a loop.
 */
void
folder_prune(struct folder *f)
{
	struct policy_error perr;
	struct policy *p = folder_policy(f, &perr);
	struct retention_pass rp;
	int64_t keep, cap_mb, now = now_ms() / 1000, next, due = 0;
	int n, more;

	/* More wake names than a pass looks at, and some went: again soon. */
	if (wake_sweep(f->sbfd, SBX_WAKE_SWEEP_MAX, &more) > 0 && more)
		due = now + SBX_PRUNE_CAP_DELAY;
	/* Nothing is due while the policy is invalid: accepting one (a change
	 * of .sandbox that sbxd watches) sets due_prune again. */
	f->due_prune = due;
	if (!p)
		return;
	keep = (int64_t)policy_limits(p)->keep_results_days * 86400;
	cap_mb = policy_limits(p)->keep_results_mb;
	f->keep_s = keep;
	f->cap_b = cap_mb << 20;
	polcache_release(p);
	if ((n = retention_prune(f->db, f->sbfd, keep, f->cap_b, now, RETENTION_BATCH, &rp)) > 0)
		audit_log(f->audit, "output_pruned", NULL, NULL, "daemon",
		    AU_I("requests", (int64_t)n), AU_I("keep_results_days", keep / 86400),
		    AU_I("by_days", (int64_t)rp.by_days), AU_I("keep_results_mb", cap_mb),
		    AU_I("by_size", (int64_t)rp.by_size), AU_I("bytes", rp.bytes),
		    AU_I("kept_bytes", rp.kept_bytes), AU_END);
	else if (n < 0)
		logf_folder(f, "retention: cannot prune finished output: %s",
		    sqlite3_errmsg(f->db));
	/* A full batch, or still over the size cap after pruning some: more
	 * may be due, after the events that wait (held-back requests, still
	 * in pending/, neither fill a batch nor count as pruned). Over the
	 * cap with nothing prunable: look again SBX_PRUNE_CAP_STUCK later.
	 * Else the next delivery still kept. */
	if (n == RETENTION_BATCH || (f->cap_b > 0 && rp.kept_bytes > f->cap_b && rp.by_size > 0))
		due = now + SBX_PRUNE_CAP_DELAY;
	else if ((next = retention_next(f->db, now - keep)) > 0 && (!due || next + keep < due))
		due = next + keep;
	if (f->cap_b > 0 && rp.kept_bytes > f->cap_b && (!due || now + SBX_PRUNE_CAP_STUCK < due))
		due = now + SBX_PRUNE_CAP_STUCK;
	f->due_prune = due;
}

void
folder_recover(struct folder *f, const struct daemon_opts *o, int lazy)
{
	struct req_row *rows, row;
	struct dirent *de;
	char id[SBX_ID_LEN + 1], path[SBX_QUEUE_PATH_MAX];
	char **orphans = NULL, **nn;
	size_t n_orphans = 0, i;
	int n, k, fd;
	DIR *d;

	/* Runs cut short by a crash: interrupted, never re-run. */
	n = db_list(f->db, req_status_name(REQ_RUNNING), -1, &rows);
	for (k = 0; k < n; k++) {
		/* Approved, never started (waiting for a slot): it runs once
		 * folder_start_waiting() gives it one. */
		if (rows[k].started == 0)
			continue;
		snprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, rows[k].id).s);
		if (!exists_nf(f->sbfd, path)) {
			result_write_recovered(f->sbfd, rows[k].id, rows[k].hash,
			    req_status_name(REQ_INTERRUPTED),
			    rows[k].approver, "sbxd stopped while the command ran; the output "
			    "captured so far follows", -1, 0);
			logf_folder(f, "request %s was running when sbxd stopped: interrupted, "
			    "not re-run", rows[k].id);
		}
		run_record(f, rows[k].id);
	}
	if (n > 0)
		db_rows_free(rows, n);
	/* Claimed files that never reached the database, or whose request is
	 * finished but not yet moved. */
	fd = openat(f->sbfd, "pending", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (d = fdopendir(fd))) {
		while ((de = readdir(d)))
			if (valid_request_name(de->d_name, id) && (nn = realloc(orphans,
			    (n_orphans + 1) * sizeof(*orphans))) && (orphans = nn) &&
			    (orphans[n_orphans] = strdup(id)))
				n_orphans++;
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	for (i = 0; i < n_orphans; i++) {
		k = db_get(f->db, orphans[i], &row);
		if (k == 0)
			request_ingest(f, o, orphans[i]);
		if (k == 1)
			req_row_free(&row);
		free(orphans[i]);
	}
	free(orphans);
	folder_expire(f);
	/* Finished requests without a retention row: delivered as of now.
	 * A folder sbxd left idle has none: every request it filed in done/
	 * since its last full open got its row then (a crash leaves no idle
	 * record), so its history is not walked at its first event. */
	if (retention_init(f->db) < 0 ||
	    (!lazy && retention_adopt(f->db, f->sbfd, now_ms() / 1000) < 0))
		logf_folder(f, "retention: cannot record finished requests: %s",
		    sqlite3_errmsg(f->db));
}
