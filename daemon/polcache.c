/*
 * polcache.c - a folder's verified policy, kept while its inputs stay the
 * same (polcache.h says why that is sound).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "common/trust/accept.h"
#include "common/trust/keys.h"
#include "daemon/polcache.h"
#include "policy/policy.h"

enum { PC_JSON, PC_ACCEPTED, PC_KEYS, PC_KEY, PC_FLOOR, PC_N };

/* What one input was: its stat, or the errno that stat gave. */
struct pc_file {
	int err;
	dev_t dev;
	ino_t ino;
	mode_t mode;
	nlink_t nlink;
	off_t size;
	struct timespec mtim, ctim;
};

struct polcache {
	struct pc_file in[PC_N];
	char who[64];               /* the acceptance's approver: NAME.pub */
	int64_t began_ms;           /* CLOCK_REALTIME when the snapshot began */
	int64_t at_mono;            /* when it was kept */
	struct policy *pol;         /* kept (NULL: a snapshot only) */
	int fd[2];                  /* policy.json, policy.accepted (O_PATH) */
};

/*
 * Policies handed out and not yet released, and the kept ones: a kept
 * policy that is dropped while a caller still uses it is freed at its
 * release. A full table keeps nothing more (each caller's copy is then
 * its own).
 */
#define PC_HELD 32
static struct {
	struct policy *p;
	int refs, kept;
} held[PC_HELD];

static int
held_find(const struct policy *p)
{
	int i;

	for (i = 0; i < PC_HELD; i++)
		if (held[i].p == p)
			return i;
	return -1;
}

/* One more reference to p (kept: the cache's own); -1 when full. */
static int
held_add(struct policy *p, int kept)
{
	int i = held_find(p);

	if (i < 0 && (i = held_find(NULL)) < 0)
		return -1;
	held[i].p = p;
	if (kept)
		held[i].kept = 1;
	else
		held[i].refs++;
	return 0;
}

static void
held_settle(int i)
{
	if (held[i].refs <= 0 && !held[i].kept) {
		policy_free(held[i].p);
		held[i].p = NULL;
		held[i].refs = held[i].kept = 0;
	}
}

void
polcache_release(struct policy *p)
{
	int i;

	if (!p)
		return;
	if ((i = held_find(p)) < 0) {
		policy_free(p);
		return;
	}
	held[i].refs--;
	held_settle(i);
}

static void
pc_free(struct polcache *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	if (c->pol && (i = held_find(c->pol)) >= 0) {
		held[i].kept = 0;
		held_settle(i);
	}
	free(c);
}

void
polcache_drop(struct folder *f)
{
	pc_free(f->pc);
	f->pc = NULL;
}

static void
pc_stat(int dirfd, const char *path, int flags, struct pc_file *o)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	if (fstatat(dirfd, path, &st, flags) < 0) {
		o->err = errno ? errno : EIO;
		return;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->mode = st.st_mode;
	o->nlink = st.st_nlink;
	o->size = st.st_size;
	o->mtim = st.st_mtim;
	o->ctim = st.st_ctim;
}

/* Every input of f's policy now (who: the approver whose key counts). */
static void
pc_snapshot(const struct folder *f, const char *who, struct pc_file in[PC_N])
{
	char path[PATH_MAX], name[33];

	pc_stat(f->sbfd, "policy.json", AT_SYMLINK_NOFOLLOW, &in[PC_JSON]);
	pc_stat(f->sbfd, SBX_ACCEPTED_FILE, AT_SYMLINK_NOFOLLOW, &in[PC_ACCEPTED]);
	if (xsnprintf(path, sizeof(path), "%s/%s", f->config, SBX_TRUSTED_DIR) < 0)
		in[PC_KEYS].err = ENAMETOOLONG;
	else
		pc_stat(AT_FDCWD, path, 0, &in[PC_KEYS]);     /* opendir follows */
	if (xsnprintf(path, sizeof(path), "%s/%s/%s.pub", f->config, SBX_TRUSTED_DIR, who) < 0)
		in[PC_KEY].err = ENAMETOOLONG;
	else
		pc_stat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &in[PC_KEY]);
	accept_floor_name(f->path, name);
	if (xsnprintf(path, sizeof(path), "%s/%s/%s", f->config, SBX_FLOOR_DIR, name) < 0)
		in[PC_FLOOR].err = ENAMETOOLONG;
	else
		pc_stat(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &in[PC_FLOOR]);
}

static int
ts_same(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static int
pc_same(const struct pc_file a[PC_N], const struct pc_file b[PC_N])
{
	int i;

	for (i = 0; i < PC_N; i++)
		if (a[i].err != b[i].err || a[i].dev != b[i].dev || a[i].ino != b[i].ino ||
		    a[i].mode != b[i].mode || a[i].nlink != b[i].nlink ||
		    a[i].size != b[i].size || !ts_same(a[i].mtim, b[i].mtim) ||
		    !ts_same(a[i].ctim, b[i].ctim))
			return 0;
	return 1;
}

struct policy *
polcache_get(struct folder *f)
{
	struct pc_file now[PC_N];
	struct polcache *c = f->pc;

	if (!c || !c->pol)
		return NULL;
	if (mono_ms() - c->at_mono >= PC_TTL_MS)
		goto drop;
	pc_snapshot(f, c->who, now);
	if (!pc_same(c->in, now) || held_add(c->pol, 0) < 0)
		goto drop;
	/* a new call: the trees it reads are looked at again */
	policy_forget_fs(c->pol);
	return c->pol;
drop:
	polcache_drop(f);
	return NULL;
}

struct polcache *
polcache_begin(struct folder *f)
{
	struct polcache *c = calloc(1, sizeof(*c));
	struct sbx_err err;
	const char *who;
	cJSON *doc = NULL;
	size_t len;
	char *text;

	if (!c)
		return NULL;
	c->fd[0] = c->fd[1] = -1;
	c->began_ms = now_ms();
	/* The key that counts is the acceptance's approver's (its name:
	 * trusted_key_find() requires it to be the key's). */
	text = read_untrusted(f->sbfd, SBX_ACCEPTED_FILE, 4096, &len, &err);
	if (text)
		doc = cJSON_ParseWithLength(text, len);
	free(text);
	who = json_str(doc, "approver");
	if (who && strlen(who) < sizeof(c->who) && !strchr(who, '/') && strcmp(who, "..") &&
	    strcmp(who, "."))
		snprintf(c->who, sizeof(c->who), "%s", who);
	cJSON_Delete(doc);
	pc_snapshot(f, c->who, c->in);
	return c;
}

/* Every input settled (its ctime PC_SETTLE_MS before the snapshot) and
 * present (the floor may be absent: a folder accepted before floors). */
static int
pc_settled(const struct polcache *c)
{
	int64_t ms;
	int i;

	if (!c->who[0])
		return 0;
	for (i = 0; i < PC_N; i++) {
		if (c->in[i].err)
			if (i != PC_FLOOR || c->in[i].err != ENOENT)
				return 0;
		ms = (int64_t)c->in[i].ctim.tv_sec * 1000 + c->in[i].ctim.tv_nsec / 1000000;
		if (!c->in[i].err && ms > c->began_ms - PC_SETTLE_MS)
			return 0;
	}
	return 1;
}

/* Opens name (O_PATH) when it is still the inode in; -1 otherwise. */
static int
pc_hold(int sbfd, const char *name, const struct pc_file *in)
{
	struct stat st;
	int fd = openat(sbfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != in->ino || st.st_dev != in->dev)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct policy *
polcache_end(struct folder *f, struct polcache *snap, struct policy *p)
{
	struct pc_file after[PC_N];

	if (!p) {
		pc_free(snap);
		return NULL;
	}
	if (snap && pc_settled(snap)) {
		pc_snapshot(f, snap->who, after);
		if (pc_same(snap->in, after) &&
		    (snap->fd[0] = pc_hold(f->sbfd, "policy.json", &snap->in[PC_JSON])) >= 0 &&
		    (snap->fd[1] = pc_hold(f->sbfd, SBX_ACCEPTED_FILE, &snap->in[PC_ACCEPTED])) >= 0 &&
		    held_add(p, 1) == 0) {
			(void)held_add(p, 0);   /* the caller's: the same slot */
			polcache_drop(f);
			snap->pol = p;
			snap->at_mono = mono_ms();
			f->pc = snap;
			return p;
		}
	}
	pc_free(snap);
	/* Not kept: the caller's alone (freed at its release). */
	return p;
}
