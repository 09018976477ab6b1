/*
 * sbxd - the watcher daemon: runs approved commands outside the agent.
 *
 *   sbxd [-c CONFIG] [--pass-env NAME]... DIR...
 *
 * Serves each DIR (prepared by `sbx init`) in the foreground until
 * SIGTERM or SIGINT. Watches the queues with libinotifytools as a hint,
 * and rescans on start-up, on queue overflow and every few seconds, so
 * nothing dropped while it was down or overloaded is lost.
 *
 * Exit codes: 0 stopped by a signal, 1 runtime error (also: every folder it
 * served was removed or replaced), 2 usage or setup.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <inotifytools/inotifytools.h>
#include <sodium.h>

#include "common/originals.h"
#include "common/registry.h"
#include "common/util.h"
#include "daemon/audit.h"
#include "daemon/exec.h"
#include "daemon/folder.h"
#include "daemon/notify.h"

#define MAX_ENV     64
#define RESCAN_MS   5000
#define PRUNE_MS    60000
/* Folders a SIGHUP may add to sbxd --all beyond those recorded at start. */
#define SBXD_RELOAD_ROOM 1024

static volatile sig_atomic_t got_stop, got_child, got_hup;
static char *cmd_env[MAX_ENV];   /* the clean environment for commands */

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
	if (sig == SIGCHLD)
		got_child = 1;
	else if (sig == SIGHUP)
		got_hup = 1;
	else
		got_stop = 1;
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

	if (!v || *n >= MAX_ENV - 1)
		return 0;
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
	    "                       (default 256 MiB per folder; checked every minute)\n"
	    "  --all                serve every folder `sbx init` recorded (CONFIG/folders)\n"
	    "  -C DIR               a folder to serve (the same as a DIR operand)\n"
	    "  -v, --verbose        log inotify events\n"
	    "  -h, --help, --version\n");
}

/* The folder an inotify watch belongs to; *kind: 0 queue, 1 decisions,
 * 2 events. */
static struct folder *
folder_of_wd(struct folder *fs, int n, int wd, int *kind)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fs[i].wd_queue == wd || fs[i].wd_decisions == wd || fs[i].wd_events == wd ||
		    fs[i].wd_sandbox == wd) {
			*kind = fs[i].wd_decisions == wd ? 1 : fs[i].wd_events == wd ? 2 :
			    fs[i].wd_sandbox == wd ? 3 : 0;
			return &fs[i];
		}
	}
	return NULL;
}

static int
any_running(struct folder *fs, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += folder_running(&fs[i]);
	return k;
}

static void
reap(struct folder *fs, int n, int flags)
{
	int i, status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, flags)) > 0) {
		for (i = 0; i < n && !folder_reaped(&fs[i], pid); i++)
			;
		if (flags == 0)
			break;
	}
}

/* Stops running commands (they are recorded as interrupted), bounded. */
static void
stop_all(struct folder *fs, int n)
{
	int64_t until = mono_ms() + 10000;
	int i;

	for (i = 0; i < n; i++)
		folder_signal_running(&fs[i], SIGTERM);
	while (any_running(fs, n) && mono_ms() < until) {
		reap(fs, n, WNOHANG);
		usleep(20000);
	}
	for (i = 0; i < n; i++)
		folder_signal_running(&fs[i], SIGKILL);
	while (any_running(fs, n))
		reap(fs, n, 0);
}

static int
watch(struct folder *f, const char *sub, int mask)
{
	char path[PATH_MAX + 32];

	if (xsnprintf(path, sizeof(path), "%s/.sandbox/%s/", f->path, sub) < 0)
		return -1;
	/* The directory itself removed or moved: folder_check() says so. */
	if (!inotifytools_watch_file(path, mask | IN_DELETE_SELF | IN_MOVE_SELF))
		return -1;
	return inotifytools_wd_from_filename(path);
}

/* Watches the folder's inboxes and .sandbox itself: 0, or -1 (errno
 * from inotifytools_error()). */
static int
watch_folder(struct folder *f)
{
	f->wd_queue = watch(f, "queue/new", IN_MOVED_TO | IN_CLOSE_WRITE);
	f->wd_decisions = watch(f, "decisions/new", IN_MOVED_TO | IN_CLOSE_WRITE);
	f->wd_events = watch(f, "queue/events", IN_MOVED_TO | IN_CLOSE_WRITE);
	f->wd_sandbox = watch(f, ".", IN_DELETE | IN_MOVED_FROM);
	return f->wd_queue < 0 || f->wd_decisions < 0 || f->wd_events < 0 ||
	    f->wd_sandbox < 0 ? -1 : 0;
}

/* Watched first, then recovered and rescanned: nothing slips between. */
static void
serve_folder(struct folder *f, struct daemon_opts *o)
{
	folder_recover(f, o);
	folder_start_waiting(f, o);
	folder_rescan(f, o);
	folder_sweep(f, o);
	(void)audit_checkpoint(f->audit);
}

static void
log_start(struct folder *f, const struct audit_key *akey, const char *config)
{
	audit_log(f->audit, "daemon_start", NULL, NULL, "daemon",
	    AU_S("version", SBX_VERSION), AU_I("pid", (int64_t)getpid()),
	    AU_S("key_id", akey->key_id), AU_S("config", config),
	    AU_S("folder", f->path), AU_END);
}

/*
 * SIGHUP: re-reads the config. Trusted keys and each folder's accepted
 * policy are read afresh anyway (per decision, per request); with --all,
 * the folder registry is read again and the folders prepared since start
 * being served, with the same steps as at start. Folders already served
 * go on untouched; one that cannot be opened is logged and skipped, and
 * sbxd keeps running. Returns the number of folders now served.
 */
static int
reload(struct folder *fs, int nf, int max, int *lock_fds, int all, const char *config,
    struct audit_key *akey, const struct audit_opts *aopts, struct daemon_opts *o)
{
	char (*listed)[4096] = NULL, real[PATH_MAX];
	struct sbx_err err;
	struct folder *f;
	int n, i, k, added = 0;

	if (!all) {
		logf_folder(NULL, "SIGHUP: reloaded; serving the %d folder(s) named on the "
		    "command line", nf);
		return nf;
	}
	if ((n = registry_count(config, &err)) < 0 ||
	    (n > 0 && !(listed = calloc((size_t)n, sizeof(*listed)))) ||
	    (n > 0 && (n = registry_list(config, listed, n, &err)) < 0)) {
		logf_folder(NULL, "SIGHUP: %s; still serving %d folder(s)",
		    n < 0 ? err.msg : "out of memory", nf);
		free(listed);
		return nf;
	}
	for (i = 0; i < n; i++) {
		if (!realpath(listed[i], real)) {
			logf_folder(NULL, "SIGHUP: %s: %s; not served", listed[i], strerror(errno));
			continue;
		}
		for (k = 0; k < nf && strcmp(fs[k].path, real) != 0; k++)
			;
		if (k < nf)
			continue;
		if (nf == max) {
			logf_folder(NULL, "SIGHUP: room for %d folders in this sbxd (those recorded "
			    "at start and %d more); %s is NOT served: restart sbxd --all",
			    max, SBXD_RELOAD_ROOM, real);
			continue;
		}
		f = &fs[nf];
		if (folder_open(f, real, config, &err) < 0) {
			logf_folder(NULL, "SIGHUP: %s; not served", err.msg);
			continue;
		}
		if (!(f->audit = audit_open(f->sbfd, f->db, akey, aopts, &err))) {
			logf_folder(f, "SIGHUP: %s; not served", err.msg);
			folder_close(f);
			continue;
		}
		log_start(f, akey, config);
		if (watch_folder(f) < 0) {
			logf_folder(f, "SIGHUP: cannot watch %s/.sandbox: %s; not served", f->path,
			    strerror(inotifytools_error()));
			audit_close(f->audit);
			folder_close(f);
			continue;
		}
		lock_fds[nf++] = f->lockfd;
		o->n_lock_fds = nf;
		serve_folder(f, o);
		logf_folder(f, "serving (config %s; added on SIGHUP)", config);
		added++;
	}
	logf_folder(NULL, "SIGHUP: reloaded %s/folders: %d recorded, %d added, serving %d",
	    config, n, added, nf);
	free(listed);
	return nf;
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
			env_add(cmd_env, nenv, optarg);
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

/* The folders of --all (CONFIG/folders): their count and *listed, or
 * the exit code as a negative number. */
static int
list_all(const char *config, char (**listed)[4096], int *nmax)
{
	struct sbx_err err;
	int n;

	if ((*nmax = registry_count(config, &err)) < 0) {
		fprintf(stderr, "sbxd: %s\n", err.msg);
		return -2;
	}
	if (*nmax > 0 && !(*listed = calloc((size_t)*nmax, sizeof(**listed)))) {
		fprintf(stderr, "sbxd: out of memory\n");
		return -1;
	}
	n = *nmax > 0 ? registry_list(config, *listed, *nmax, &err) : 0;
	if (n < 0) {
		fprintf(stderr, "sbxd: %s\n", err.msg);
		return -2;
	}
	if (n == 0) {
		fprintf(stderr, "sbxd: no folders recorded in %s/folders; run `sbx init "
		    "DIR` first\n", config);
		return -2;
	}
	return n;
}

/* Opens, locks and watches every folder, then serves each: 0 or the
 * exit code. */
static int
open_folders(struct folder *fs, int *nf, int nmax, int *lock_fds, char *const *paths,
    int npaths, const struct sbxd_args *a, struct audit_key *akey)
{
	struct sbx_err err;
	int i;

	for (i = 0; i < npaths; i++) {
		if (*nf == nmax) {
			fprintf(stderr, "sbxd: the folder list changed while starting; start again\n");
			return 2;
		}
		if (folder_open(&fs[*nf], paths[i], a->config, &err) < 0) {
			fprintf(stderr, "sbxd: %s\n", err.msg);
			return 2;
		}
		if (!(fs[*nf].audit = audit_open(fs[*nf].sbfd, fs[*nf].db, akey, &a->aopts,
		    &err))) {
			fprintf(stderr, "sbxd: %s: %s\n", fs[*nf].path, err.msg);
			return 2;
		}
		log_start(&fs[*nf], akey, a->config);
		lock_fds[*nf] = fs[*nf].lockfd;
		(*nf)++;
	}
	return 0;
}

/* An inotify event: a request, a decision or an event to handle, or a
 * change in .sandbox to check. *rescan set on a queue overflow. */
static void
on_event(struct folder *fs, int nf, const struct inotify_event *ev,
    const struct daemon_opts *o, int64_t *next_scan)
{
	struct folder *f;
	int is_dec;

	if (ev->mask & IN_Q_OVERFLOW) {
		logf_folder(NULL, "inotify queue overflow: rescanning every folder");
		*next_scan = 0;
	} else if ((f = folder_of_wd(fs, nf, ev->wd, &is_dec)) &&
	    (is_dec == 3 || (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)))) {
		/* Something in .sandbox went away: is the tree still ours? */
		(void)folder_check(f);
	} else if (ev->len > 0 && (f = folder_of_wd(fs, nf, ev->wd, &is_dec)) && !f->dead) {
		if (o->verbose)
			logf_folder(f, "event %s on %s", ev->name,
			    is_dec == 1 ? "decisions" : is_dec == 2 ? "events" : "queue");
		if (is_dec == 1)
			folder_decision(f, o, ev->name);
		else if (is_dec == 2)
			folder_event(f, o, ev->name);
		else
			folder_request(f, o, ev->name);
	}
}

/* The periodic pass: expiries, and anything inotify missed. 1 when no
 * folder is left to serve. */
static int
periodic(struct folder *fs, int nf, const struct daemon_opts *o, long long originals_cap,
    int64_t *next_prune)
{
	int i, ndead;

	for (i = 0; i < nf; i++) {
		if (folder_check(&fs[i]) < 0)
			continue;
		folder_rescan(&fs[i], o);
		folder_start_waiting(&fs[i], o);
		folder_expire(&fs[i]);
		notify_expiring(fs[i].db, fs[i].path);
		folder_sweep(&fs[i], o);
		if (mono_ms() >= *next_prune)
			originals_prune(fs[i].sbfd, originals_cap);
	}
	if (mono_ms() >= *next_prune)
		*next_prune = mono_ms() + PRUNE_MS;
	for (i = 0, ndead = 0; i < nf; i++)
		ndead += fs[i].dead;
	if (ndead == nf) {
		logf_folder(NULL, "no folder left to serve: stopping");
		return 1;
	}
	return 0;
}

/* Group commit: whatever this pass logged is made durable. */
static void
audit_ticks(struct folder *fs, int nf, int64_t *audit_failed)
{
	int i;

	for (i = 0; i < nf; i++) {
		if (fs[i].dead)
			continue;
		audit_tick(fs[i].audit);
		if (audit_failures(fs[i].audit) != audit_failed[i]) {
			audit_failed[i] = audit_failures(fs[i].audit);
			logf_folder(&fs[i], "AUDIT LOG: %lld record(s) could not be written "
			    "(disk full or I/O error); check .sandbox/audit.jsonl",
			    (long long)audit_failed[i]);
		}
	}
}

/* Stops the commands, logs daemon_stop and closes every folder. */
static void
stop_folders(struct folder *fs, int nf)
{
	int i;

	stop_all(fs, nf);
	for (i = 0; i < nf; i++) {
		/* A lost folder is left alone: closing its database cleanly could
		 * unlink files by path in the tree that replaced it. */
		if (fs[i].dead) {
			logf_folder(&fs[i], "stopped (this folder was no longer served)");
			continue;
		}
		audit_log(fs[i].audit, "daemon_stop", NULL, NULL, "daemon",
		    AU_S("reason", "signal"), AU_END);
		audit_close(fs[i].audit);
		fs[i].audit = NULL;
		logf_folder(&fs[i], "stopped");
		folder_close(&fs[i]);
	}
}

int
main(int argc, char **argv)
{
	/* Sized to the folders named or recorded, with room for the ones a
	 * SIGHUP adds: no fixed cap, and a reload past the room says so. */
	static struct folder *fs;
	static char (*listed)[4096];
	static int *lock_fds;
	static struct sbxd_args a;  /* static: dirs still reachable at exit (LeakSanitizer) */
	static struct audit_key akey;
	static int64_t *audit_failed;
	int nall = 0, nmax, cap, nf = 0, nenv = 0, i, rc, lost = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct daemon_opts o = { .env = cmd_env };
	struct inotify_event *ev;
	struct sbx_err err;
	int64_t next_scan, next_prune = 0;
	char **paths;

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
	nmax = a.ndirs;
	if (a.all && (nall = list_all(a.config, &listed, &nmax)) < 0)
		return -nall;
	cap = nmax + (a.all ? SBXD_RELOAD_ROOM : 0);
	fs = calloc((size_t)cap, sizeof(*fs));
	lock_fds = calloc((size_t)cap, sizeof(*lock_fds));
	audit_failed = calloc((size_t)cap, sizeof(*audit_failed));
	paths = calloc((size_t)(a.all ? nall : a.ndirs) + 1, sizeof(*paths));
	if (!fs || !lock_fds || !audit_failed || !paths) {
		fprintf(stderr, "sbxd: out of memory\n");
		free(paths);
		return 1;
	}
	for (i = 0; i < (a.all ? nall : a.ndirs); i++)
		paths[i] = a.all ? listed[i] : a.dirs[i];
	rc = open_folders(fs, &nf, nmax, lock_fds, paths, i, &a, &akey);
	free(paths);
	if (rc != 0)
		return rc;
	o.lock_fds = lock_fds;
	o.n_lock_fds = nf;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (!inotifytools_initialize()) {
		fprintf(stderr, "sbxd: cannot initialise inotify: %s\n",
		    strerror(inotifytools_error()));
		return 1;
	}
	for (i = 0; i < nf; i++) {
		if (watch_folder(&fs[i]) < 0) {
			fprintf(stderr, "sbxd: cannot watch %s/.sandbox: %s (check "
			    "fs.inotify.max_user_watches)\n", fs[i].path,
			    strerror(inotifytools_error()));
			return 1;
		}
		serve_folder(&fs[i], &o);
		logf_folder(&fs[i], "serving (config %s)", a.config);
	}
	next_scan = mono_ms() + RESCAN_MS;
	while (!got_stop) {
		if (got_hup) {
			got_hup = 0;
			nf = reload(fs, nf, cap, lock_fds, a.all, a.config, &akey, &a.aopts, &o);
		}
		if ((ev = inotifytools_next_event(1)))
			on_event(fs, nf, ev, &o, &next_scan);
		if (got_child) {
			got_child = 0;
			reap(fs, nf, WNOHANG);
			/* Freed slots go to approved requests that wait for one. */
			for (i = 0; i < nf; i++)
				if (!fs[i].dead)
					folder_start_waiting(&fs[i], &o);
		}
		if (mono_ms() >= next_scan) {
			if ((lost = periodic(fs, nf, &o, a.originals_cap, &next_prune)))
				break;
			next_scan = mono_ms() + RESCAN_MS;
		}
		audit_ticks(fs, nf, audit_failed);
	}
	stop_folders(fs, nf);
	audit_key_wipe(&akey);
	inotifytools_cleanup();
	return lost ? 1 : 0;
}
