/*
 * cmd_handover.c - `sbx handover`: deployment 3 of the README. Run by
 * root, it gives a folder's .sandbox/ to sbxd's own user (B), who holds
 * credentials and keys the agent's user (A, the folder's owner) cannot
 * read: B's sbxd executes approved commands with B's rights, B's
 * approver signs, and A's hooks only drop files into the drop boxes.
 *
 *   .sandbox/                        B:G  0750  G: A's group, A's alone
 *   .sandbox/users                   root 0644  "agent A / daemon B / group G"
 *   queue/ proxy/ pending/ done/ results/      B:G  0750  A reads
 *   queue/{tmp,new,delivered,events,wake}, queue/originals and its
 *   two subdirectories, proxy/{tmp,events}
 *                                    B:G  1770  A drops files (sticky)
 *   decisions/{,tmp,new} rejected/ work/        B    0700
 *   policy.json .gitignore sbxd.lock B    0644  A reads
 *   state.db                         B    0600  (empty: sbxd makes it)
 *
 * MUST build the new tree under a .sandbox that root just made and
 * holds by fd (the folder is A's: A can rename entries in it), every
 * step relative to that fd, with O_NOFOLLOW; MUST hand it to B only
 * when it is complete. MUST do what belongs to a user (keys, the
 * acceptance, A's copy of B's public keys) as that user, in a child
 * that dropped root: never write into a user's home as root.
 *
 * `--undo` is the way back (handover_undo): MUST NOT run while an sbxd
 * holds the folder's lock, MUST keep B's tree whole (renamed, never
 * copied, changed or deleted) and MUST rename only what it checked by fd.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/protocol/queue.h"
#include "common/protocol/registry.h"
#include "common/protocol/users.h"
#include "common/trust/keys.h"
#include "policy/policy.h"

struct user {
	uid_t uid;
	gid_t gid;
	char name[64];
	char home[PATH_MAX];
	char config[PATH_MAX];
};

/* What B hands A: its public keys, "approver NAME HEX\n"... "daemon HEX\n". */
#define PUBS_MAX 8192

static int
user_find(const char *name, uid_t uid, struct user *u)
{
	struct passwd *pw = name ? getpwnam(name) : getpwuid(uid);

	if (!pw || !pw->pw_name || !pw->pw_dir || pw->pw_dir[0] != '/' ||
	    xsnprintf(u->name, sizeof(u->name), "%s", pw->pw_name) < 0 ||
	    xsnprintf(u->home, sizeof(u->home), "%s", pw->pw_dir) < 0)
		return -1;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	return 0;
}

/* 0 when nobody but A (and B) has group G, primary or supplementary. */
static int
group_alone(const struct user *a, const struct user *b, char *who, size_t n)
{
	struct passwd *pw;
	struct group *gr;
	char **m;
	int rc = 0;

	setpwent();
	while ((pw = getpwent()))
		if (pw->pw_gid == a->gid && pw->pw_uid != a->uid && pw->pw_uid != b->uid) {
			snprintf(who, n, "%s", pw->pw_name);
			rc = -1;
			break;
		}
	endpwent();
	if (rc == 0 && (gr = getgrgid(a->gid)))
		for (m = gr->gr_mem; m && *m; m++)
			if (strcmp(*m, a->name) && strcmp(*m, b->name)) {
				snprintf(who, n, "%s", *m);
				rc = -1;
				break;
			}
	return rc;
}

/* In a child: drop root for U for good. -1 when it could not. */
static int
become(const struct user *u)
{
	if (initgroups(u->name, u->gid) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0 ||
	    getuid() != u->uid || geteuid() != u->uid || getegid() != u->gid ||
	    setuid(0) == 0)
		return -1;
	(void)setenv("HOME", u->home, 1);
	(void)setenv("USER", u->name, 1);
	return 0;
}

/* Runs fn(arg) in a child as U; its exit code (1 when it died). */
static int
as_user(const struct user *u, int (*fn)(const struct user *, void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		if (become(u) < 0) {
			fprintf(stderr, "sbx: cannot become user %s: %s\n", u->name, strerror(errno));
			_exit(1);
		}
		fflush(stdout);
		_exit(fn(u, arg));
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Where each directory of the layout goes: 0 B only, 1 A reads, 2 A drops. */
static int
dir_share(const char *d)
{
	static const char *const reads[] = { "queue", "proxy", "pending", "done", "results",
		NULL };
	static const char *const drops[] = { "queue/tmp", "queue/new", "queue/delivered",
		"queue/events", "queue/wake", "queue/originals", "queue/originals/objects",
		"queue/originals/index", "proxy/tmp", "proxy/events", NULL };
	int i;

	for (i = 0; reads[i]; i++)
		if (!strcmp(d, reads[i]))
			return 1;
	for (i = 0; drops[i]; i++)
		if (!strcmp(d, drops[i]))
			return 2;
	return 0;
}

/* Makes DFD/NAME (mode, owner) as root in a tree only root can enter yet. */
static int
make_file(int dfd, const char *name, const char *text, uid_t uid, gid_t gid, mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = -1;

	if (fd < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) == 0 && fchown(fd, uid, gid) == 0 &&
	    fchmod(fd, mode) == 0 && fsync(fd) == 0)
		rc = 0;
	close(fd);
	return rc;
}

/* The new .sandbox under FOLDER (fd FFD), complete, then given to B. */
static int
build_tree(int ffd, const char *folder, const struct user *a, const struct user *b)
{
	char users[SBX_USERS_MAX + 1];
	struct stat st;
	int sbfd, fd, i, share;

	if (mkdirat(ffd, ".sandbox", 0700) < 0) {
		fprintf(stderr, "sbx: cannot create %s/.sandbox: %s\n", folder, strerror(errno));
		return -1;
	}
	/* A may have swapped it already: only the directory root made (owned
	 * by root, empty) is used, by fd from here on. */
	sbfd = openat(ffd, ".sandbox", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sbfd < 0 || fstat(sbfd, &st) < 0 || st.st_uid != 0 || st.st_nlink != 2) {
		fprintf(stderr, "sbx: %s/.sandbox changed while it was made; not handed over\n",
		    folder);
		goto fail;
	}
	for (i = 0; queue_dirs[i]; i++) {
		share = dir_share(queue_dirs[i]);
		if (mkdirat(sbfd, queue_dirs[i], 0700) < 0 ||
		    (fd = openat_nf(sbfd, queue_dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
			goto fail_sys;
		if (fchown(fd, b->uid, share ? a->gid : b->gid) < 0 ||
		    fchmod(fd, share == 2 ? 01770 : share == 1 ? 0750 : 0700) < 0) {
			close(fd);
			goto fail_sys;
		}
		close(fd);
	}
	snprintf(users, sizeof(users), "agent %lu\ndaemon %lu\ngroup %lu\n",
	    (unsigned long)a->uid, (unsigned long)b->uid, (unsigned long)a->gid);
	if (make_file(sbfd, SBX_USERS_FILE, users, 0, 0, 0644) < 0 ||
	    make_file(sbfd, "policy.json", policy_default_text(), b->uid, b->gid, 0644) < 0 ||
	    make_file(sbfd, ".gitignore", "# sbx state, queue and log: not source\n*\n",
	    b->uid, b->gid, 0644) < 0 ||
	    make_file(sbfd, "sbxd.lock", "", b->uid, b->gid, 0644) < 0 ||
	    make_file(sbfd, "state.db", "", b->uid, b->gid, 0600) < 0)
		goto fail_sys;
	/* Complete: now B's, and the agent's group may enter. */
	if (fchown(sbfd, b->uid, a->gid) < 0 || fchmod(sbfd, 0750) < 0 || fsync(sbfd) < 0)
		goto fail_sys;
	close(sbfd);
	return 0;
fail_sys:
	fprintf(stderr, "sbx: cannot build %s/.sandbox: %s\n", folder, strerror(errno));
fail:
	if (sbfd >= 0)
		close(sbfd);
	return -1;
}

struct b_job {
	const char *folder;
	int fresh;                  /* a new tree: accept its default policy */
	int out;                    /* pipe: B's public keys for A */
};

/* Appends "approver NAME HEX" for each key CONFIG/approvers/ trusts to
 * pubs (o bytes used, cap in all); the new length, 0 on error (said). */
static size_t
approver_pubs(const char *config, char *pubs, size_t o, size_t cap)
{
	char path[PATH_MAX + 16], name[64], pkhex[65];
	unsigned char pk[32];
	struct sbx_err err = { "" };
	struct dirent *de;
	size_t n;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", config, SBX_TRUSTED_DIR);
	if (!(d = opendir(path))) {
		fprintf(stderr, "sbx: cannot read %s: %s\n", path, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n < 5 || n - 4 >= sizeof(name) || strcmp(de->d_name + n - 4, ".pub") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 4), de->d_name);
		if (!valid_name(name))
			continue;
		if (key_read_public(dirfd(d), de->d_name, pk, &err) < 0 || cap - o < 128) {
			fprintf(stderr, "sbx: %s/%s\n", path, cap - o < 128 ? "too many keys" :
			    err.msg);
			closedir(d);
			return 0;
		}
		hex_encode(pkhex, pk, 32);
		o += (size_t)snprintf(pubs + o, cap - o, "approver %s %s\n", name, pkhex);
	}
	closedir(d);
	return o;
}

/* As B: its keys (made when missing), the acceptance, the registry; its
 * public keys into the pipe. */
static int
b_side(const struct user *b, void *arg)
{
	struct b_job *j = arg;
	char pubs[PUBS_MAX], pkhex[65], skhex[129], text[512];
	unsigned char pk[32], sk[64];
	struct sbx_err err = { "" };
	size_t o = 0;
	int made, sbfd, dfd, fd, n;

	if ((sbfd = sandbox_open(j->folder, &err)) < 0) {
		fprintf(stderr, "sbx: user %s cannot use the folder: %s (it must be able to "
		    "enter every directory up to it)\n", b->name, err.msg);
		return 1;
	}
	close(sbfd);
	if ((made = approver_key_create(b->config, b->name, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (made)
		printf("created approver key %s/approver.key for %s\n", b->config, b->name);
	/* sbxd's result key, as sbxd itself makes it (daemon/audit.c). */
	if ((dfd = open(b->config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	if (faccessat(dfd, "daemon.key", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		crypto_sign_keypair(pk, sk);
		hex_encode(pkhex, pk, 32);
		hex_encode(skhex, sk, 64);
		n = snprintf(text, sizeof(text), "sbx-daemon-key-v1\npublic %s\nsecret %s\n",
		    pkhex, skhex);
		fd = openat(dfd, "daemon.key", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		sodium_memzero(sk, sizeof(sk));
		sodium_memzero(skhex, sizeof(skhex));
		if (fd < 0 || write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0) {
			sodium_memzero(text, sizeof(text));
			fprintf(stderr, "sbx: cannot write %s/daemon.key\n", b->config);
			return 1;
		}
		sodium_memzero(text, sizeof(text));
		close(fd);
		n = snprintf(text, sizeof(text), "%s\n", pkhex);
		if (write_atomic(dfd, ".", "daemon.pub", text, (size_t)n, 0644, 0) < 0) {
			fprintf(stderr, "sbx: cannot write %s/daemon.pub\n", b->config);
			return 1;
		}
		printf("created sbxd's key %s/daemon.key for %s\n", b->config, b->name);
	}
	if (key_read_public(dfd, "daemon.pub", pk, &err) < 0) {
		fprintf(stderr, "sbx: %s/%s\n", b->config, err.msg);
		return 1;
	}
	close(dfd);
	hex_encode(pkhex, pk, 32);
	o += (size_t)snprintf(pubs + o, sizeof(pubs) - o, "daemon %lu %s\n",
	    (unsigned long)b->uid, pkhex);
	if ((o = approver_pubs(b->config, pubs, o, sizeof(pubs))) == 0)
		return 1;
	if (j->fresh) {
		if (policy_accept_write(b->config, j->folder, &err) < 0) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
		printf("accepted the default policy as %s (change it with `sbx policy edit`, "
		    "as %s)\n", b->name, b->name);
	}
	if ((n = registry_add(b->config, j->folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (n)
		printf("recorded %s in %s/folders (for sbxd --all)\n", j->folder, b->config);
	return write_all(j->out, pubs, o) < 0 ? 1 : 0;
}

/* As A: B's public keys into A's config, where its hooks look. */
static int
a_side(const struct user *a, void *arg)
{
	char *pubs = arg, *line, *save = NULL, name[64], hex[65], path[128], text[80];
	unsigned long uid;
	struct sbx_err err = { "" };
	int dfd, n;

	if (mkdir_p(a->config, 0700) < 0 ||
	    (dfd = open(a->config, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (mkdirat(dfd, SBX_TRUSTED_DIR, 0700) < 0 && errno != EEXIST)) {
		fprintf(stderr, "sbx: cannot prepare %s: %s\n", a->config, strerror(errno));
		return 1;
	}
	for (line = strtok_r(pubs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "daemon %lu %64s", &uid, hex) == 2) {
			/* Not daemon.pub: that is an sbxd of A's own, for A's folders. */
			snprintf(path, sizeof(path), "daemon.%lu.pub", uid);
		} else if (sscanf(line, "approver %63s %64s", name, hex) == 2 && valid_name(name)) {
			snprintf(path, sizeof(path), "%s/%s.pub", SBX_TRUSTED_DIR, name);
		} else {
			fprintf(stderr, "sbx: bad key line from the daemon's user\n");
			return 1;
		}
		n = snprintf(text, sizeof(text), "%s\n", hex);
		if (write_atomic(dfd, strchr(path, '/') ? SBX_TRUSTED_DIR : ".", path, text,
		    (size_t)n, 0644, 0) < 0) {
			fprintf(stderr, "sbx: cannot write %s/%s: %s\n", a->config, path,
			    strerror(errno));
			return 1;
		}
	}
	close(dfd);
	(void)err;
	printf("copied the public keys of sbxd and the approvers into %s (the hooks check "
	    "results and the policy's acceptance with them)\n", a->config);
	return 0;
}

/* The config dir of U: the option's, else HOME/.config/sbx. */
static int
user_config(struct user *u, const char *opt)
{
	if (opt)
		return realpath(opt, u->config) ? 0 : xsnprintf(u->config, sizeof(u->config),
		    "%s", opt);
	return xsnprintf(u->config, sizeof(u->config), "%s/.config/sbx", u->home);
}

/* As B, in an undo: the folder out of B's registry (sbxd --all). */
static int
b_forget(const struct user *b, void *arg)
{
	struct sbx_err err = { "" };
	int n;

	if ((n = registry_remove(b->config, arg, &err)) < 0) {
		fprintf(stderr, "sbx: warning: %s\n", err.msg);
		return 1;
	}
	if (n)
		printf("took %s out of %s/folders (B's sbxd --all no longer serves it)\n",
		    (const char *)arg, b->config);
	return 0;
}

/* Holds the exclusive flock of SBFD/sbxd.lock (no sbxd serves the folder
 * or starts on it while held): its fd, -2 when there is no lock file, -1
 * when it cannot be had (said). */
static int
undo_lock(int sbfd, const char *folder, const char *bname)
{
	struct stat st;
	char why[200], who[512];
	long pid;
	int fd, n, locked;

	fd = openat(sbfd, "sbxd.lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return -2;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "sbx: %s/.sandbox/sbxd.lock is not a regular file; nothing undone\n",
		    folder);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A hook's probe may hold a shared lock for a moment. */
	for (n = 0; !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0) && errno == EWOULDBLOCK &&
	    n < 50; n++)
		usleep(20000);
	if (locked)
		return fd;
	if ((pid = sbxd_holder(sbfd)) > 0)
		fprintf(stderr, "sbx: %s's sbxd (pid %ld) serves %s; stop it first (nothing was "
		    "undone)\n", bname, pid, folder);
	else if ((pid = sbxd_stopped_fd(fd, why, sizeof(why))) > 0)
		fprintf(stderr, "sbx: sbxd pid %ld stopped serving %s (%s) but still runs; stop it "
		    "first (nothing was undone)\n", pid, folder, why);
	else if (sbxd_lock_holders(fd, who, sizeof(who), &pid) > 0)
		/* Not an sbxd that serves, but its lock is held: the undo never
		 * runs then (it cannot tell a process of the agent's user from
		 * an sbxd starting, and a shared lock held longer than this is
		 * not a hook's probe). Who, so that root can end it. */
		fprintf(stderr, "sbx: %s/.sandbox/sbxd.lock is held by %s; nothing undone: no "
		    "undo while any process holds that lock (an sbxd starting or stopping "
		    "holds it too). Stop it (as root: kill %ld) and run the undo again\n",
		    folder, who, pid);
	else
		fprintf(stderr, "sbx: %s/.sandbox/sbxd.lock is held (an sbxd starting or stopping, "
		    "or a process holding it, not named in /proc/locks: another PID namespace, "
		    "such as sbx jail); nothing undone: find it (`fuser -v %s/.sandbox/sbxd.lock`), "
		    "stop it and try again\n", folder, folder);
	close(fd);
	return -1;
}

/*
 * `sbx handover --undo`: the folder back to its owner alone (deployment
 * 1). B's .sandbox, with its state.db, audit log and results, is kept
 * whole and still B's, renamed .sandbox.handed-over in the folder (A can
 * rename that entry, never change or remove what is in it); A's own
 * .sandbox from before the handover comes back when it is there. Never
 * while an sbxd serves the folder (its lock is held throughout); every
 * step is a rename relative to the folder's fd, following nothing.
 */
static int
handover_undo(int ffd, const char *folder, const struct stat *fst, const char *dconf)
{
	struct sandbox_users su;
	struct sbx_err err = { "" };
	struct stat st, now;
	struct user a, b;
	char name[64];
	int sbfd, lockfd = -1, rc = 1, n, r, back = 0, bknown;

	sbfd = openat(ffd, ".sandbox", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sbfd < 0 || fstat(sbfd, &st) < 0) {
		fprintf(stderr, "sbx: %s/.sandbox: %s\n", folder, errno == ELOOP ||
		    errno == ENOTDIR ? "not a directory" : strerror(errno));
		goto out;
	}
	r = sandbox_users_read(sbfd, &su, &err);
	if (r != 1 || st.st_uid != su.daemon || fst->st_uid != su.agent) {
		fprintf(stderr, "sbx: %s/.sandbox is not handed over: %s; nothing to undo\n",
		    folder, r < 0 ? err.msg : r == 0 ? "it has no users file" :
		    "its owner or the folder's is not the one its users file names");
		goto out;
	}
	/* A user whose account is gone (userdel) is named by uid: the way
	 * back must not depend on it. */
	if (user_find(NULL, su.agent, &a) < 0) {
		memset(&a, 0, sizeof(a));
		a.uid = su.agent;
		snprintf(a.name, sizeof(a.name), "uid %lu", (unsigned long)su.agent);
	}
	if ((bknown = user_find(NULL, su.daemon, &b) == 0) && user_config(&b, dconf) < 0) {
		fprintf(stderr, "sbx: config path too long\n");
		goto out;
	}
	if (!bknown) {
		memset(&b, 0, sizeof(b));
		b.uid = su.daemon;
		snprintf(b.name, sizeof(b.name), "uid %lu", (unsigned long)su.daemon);
	}
	if ((lockfd = undo_lock(sbfd, folder, b.name)) == -1)
		goto out;
	for (n = 1; n < 100; n++) {
		snprintf(name, sizeof(name), n == 1 ? ".sandbox.handed-over" :
		    ".sandbox.handed-over.%d", n);
		if (renameat2(ffd, ".sandbox", ffd, name, RENAME_NOREPLACE) == 0)
			break;
		if (errno != EEXIST) {
			fprintf(stderr, "sbx: cannot move %s/.sandbox aside: %s; nothing undone\n",
			    folder, strerror(errno));
			goto out;
		}
	}
	if (n == 100) {
		fprintf(stderr, "sbx: %s has 99 .sandbox.handed-over.N already; nothing undone\n",
		    folder);
		goto out;
	}
	/* The folder is A's: A may have swapped .sandbox since it was checked.
	 * What moved must be the tree checked, else it goes back. */
	if (fstatat(ffd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 || now.st_dev != st.st_dev ||
	    now.st_ino != st.st_ino) {
		(void)renameat2(ffd, name, ffd, ".sandbox", RENAME_NOREPLACE);
		fprintf(stderr, "sbx: %s/.sandbox changed while it was moved; nothing undone\n",
		    folder);
		goto out;
	}
	printf("moved %s's %s/.sandbox to %s, unchanged: its state.db, audit log and results "
	    "stay %s's (%s cannot change them)\n", b.name, folder, name, b.name, a.name);
	/* A's own, from sbx init, when handover moved it aside. */
	if (fstatat(ffd, ".sandbox.before-handover", &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(now.st_mode) && now.st_uid == a.uid &&
	    renameat2(ffd, ".sandbox.before-handover", ffd, ".sandbox", RENAME_NOREPLACE) == 0) {
		back = 1;
		printf("moved %s's own .sandbox.before-handover back to .sandbox\n", a.name);
	}
	if (bknown)
		(void)as_user(&b, b_forget, (void *)folder);
	else
		printf("%s has no account: no sbxd --all of its serves the folder\n", b.name);
	printf("%s is %s's alone again (deployment 1); next, as %s: %s`sbxd %s`\n", folder,
	    a.name, a.name, back ? "" : "`sbx init` in the folder, then ", folder);
	if (bknown)
		printf("      (%s's public keys stay in %s's config dir, for other folders handed "
		    "over to %s: `sbx approvers rm %s` as %s stops trusting its approvals)\n",
		    b.name, a.name, b.name, b.name, a.name);
	rc = 0;
out:
	if (lockfd >= 0)
		close(lockfd);
	if (sbfd >= 0)
		close(sbfd);
	return rc;
}

int
cmd_handover(struct sbx_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "daemon-user", required_argument, NULL, 'd' },
		{ "daemon-config", required_argument, NULL, 'D' },
		{ "agent-config", required_argument, NULL, 'A' },
		{ "undo", no_argument, NULL, 'u' }, { NULL, 0, NULL, 0 },
	};
	static const char use[] = "usage: sbx handover --daemon-user USER "
	    "[--daemon-config DIR] [--agent-config DIR] [DIR]\n"
	    "       sbx handover --undo [--daemon-config DIR] [DIR]\n"
	    "  (as root) give DIR's .sandbox/ to sbxd's own user USER: deployment 3;\n"
	    "  --undo: give DIR back to its owner alone (stop the daemon user's sbxd\n"
	    "  first); that user's .sandbox, with its state and audit log, is kept\n"
	    "  unchanged as DIR/.sandbox.handed-over. It refuses while any process\n"
	    "  holds DIR/.sandbox/sbxd.lock and names it: stop it, run it again.\n"
	    "  DIR is opened from / without following a symlink on the way\n";
	const char *dname = NULL, *dconf = NULL, *aconf = NULL, *dir;
	char folder[PATH_MAX], who[64], pubs[PUBS_MAX + 1];
	struct sandbox_users su;
	struct user a, b;
	struct b_job job = { .fresh = 1 };
	struct stat st;
	struct sbx_err err = { "" };
	int i, ffd = -1, sbfd, p[2], rc = 1, quit, r, undo = 0;
	ssize_t n;
	size_t got = 0;

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i == 'd')
			dname = optarg;
		else if (i == 'D')
			dconf = optarg;
		else if (i == 'A')
			aconf = optarg;
		else if (i == 'u')
			undo = 1;
		else if ((quit = sub_opt_common(c, i, use)) >= 0)
			return quit;
	}
	if ((!dname == !undo) || (undo && aconf) || optind < argc - 1)
		return sub_usage(use, 0);
	dir = argv[optind] ? argv[optind] : c->dir ? c->dir : ".";
	if (geteuid() != 0) {
		fprintf(stderr, "sbx: handover gives files to another user: run it as root\n");
		return 1;
	}
	/* Resolved once, then opened from / one directory at a time without
	 * following a symlink: a directory on the way that the agent's user
	 * swapped for a symlink since (it may rename what it owns) is
	 * refused, so root never works on a folder other than the one named. */
	if (!realpath(dir, folder)) {
		fprintf(stderr, "sbx: %s: %s\n", dir, strerror(errno));
		goto out;
	}
	if ((ffd = open_dir_abs_nf(folder)) < 0 || fstat(ffd, &st) < 0) {
		fprintf(stderr, "sbx: %s: %s; nothing done\n", folder, errno == ELOOP ||
		    errno == ENOTDIR ? "a symlink (or a file) on the way where a directory "
		    "was when the path was resolved: not followed" : strerror(errno));
		goto out;
	}
	if (undo) {
		rc = handover_undo(ffd, folder, &st, dconf);
		goto out;
	}
	/* The agent is the folder's owner; sbxd's user is another, not root. */
	if (user_find(NULL, st.st_uid, &a) < 0 || user_find(dname, 0, &b) < 0) {
		fprintf(stderr, "sbx: no such user: %s\n", user_find(dname, 0, &b) < 0 ? dname :
		    "the folder's owner");
		goto out;
	}
	if (a.uid == 0 || b.uid == 0 || a.uid == b.uid) {
		fprintf(stderr, "sbx: the folder's owner (the agent's user, %s) and the daemon's "
		    "user (%s) must be two users other than root\n", a.name, b.name);
		goto out;
	}
	if (group_alone(&a, &b, who, sizeof(who)) < 0) {
		fprintf(stderr, "sbx: group %lu of %s is shared with %s: the drop boxes would be "
		    "theirs too; give %s a group of its own\n", (unsigned long)a.gid, a.name, who,
		    a.name);
		goto out;
	}
	if (user_config(&a, aconf) < 0 || user_config(&b, dconf) < 0) {
		fprintf(stderr, "sbx: config path too long\n");
		goto out;
	}
	/* A .sandbox already there: handed over to these two (run again for
	 * the keys), else the agent's own, moved aside unless sbxd used it. */
	if (fstatat(ffd, ".sandbox", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		sbfd = S_ISDIR(st.st_mode) ? openat(ffd, ".sandbox", O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC) : -1;
		r = sbfd >= 0 ? sandbox_users_read(sbfd, &su, &err) : -1;
		if (r == 1 && st.st_uid == b.uid && su.daemon == b.uid && su.agent == a.uid) {
			printf("%s/.sandbox is handed over to %s already\n", folder, b.name);
			job.fresh = 0;
		} else if (sbfd >= 0 && r == 0 && st.st_uid == a.uid &&
		    faccessat(sbfd, "state.db", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
			if (renameat2(ffd, ".sandbox", ffd, ".sandbox.before-handover",
			    RENAME_NOREPLACE) < 0) {
				fprintf(stderr, "sbx: cannot move %s/.sandbox aside: %s\n", folder,
				    strerror(errno));
				close(sbfd);
				goto out;
			}
			printf("moved %s's %s/.sandbox to .sandbox.before-handover (its policy.json "
			    "is not used: review it)\n", a.name, folder);
		} else {
			fprintf(stderr, "sbx: %s/.sandbox is not one sbx handover can take: %s; move "
			    "it away first (an sbxd of %s served it, or it belongs to another user)\n",
			    folder, r < 0 ? err.msg : "it has state", a.name);
			if (sbfd >= 0)
				close(sbfd);
			goto out;
		}
		if (sbfd >= 0)
			close(sbfd);
	}
	if (job.fresh && build_tree(ffd, folder, &a, &b) < 0)
		goto out;
	if (job.fresh)
		printf("handed %s/.sandbox over to %s (group %lu of %s may drop requests and read "
		    "results; state, keys and the audit log are %s's)\n", folder, b.name,
		    (unsigned long)a.gid, a.name, b.name);
	if (pipe(p) < 0)
		goto out;
	job.folder = folder;
	job.out = p[1];
	r = as_user(&b, b_side, &job);
	close(p[1]);
	while (got < PUBS_MAX && (n = read(p[0], pubs + got, PUBS_MAX - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	pubs[got] = '\0';
	if (r != 0 || got == 0)
		goto out;
	if (as_user(&a, a_side, pubs) != 0)
		goto out;
	printf("next, as %s: `sbxd %s` (or `sbxd --all`), and approve with `sbx -C %s watch`;\n"
	    "      %s runs the agent as before (its hooks drop requests, %s's sbxd runs them "
	    "with %s's rights)\n", b.name, folder, folder, a.name, b.name, b.name);
	rc = 0;
out:
	if (ffd >= 0)
		close(ffd);
	return rc;
}
