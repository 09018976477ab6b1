/*
 * trigger.c - the write, read and network triggers, shared by every tool.
 *
 * Rules:
 * - A path is judged after kernel-like resolution (path_resolve): a
 *   symlink inside the project that points at /etc is a write to /etc.
 * - Order of a write: self-protection (deny) > deny rules (deny) > block
 *   devices (deny) > denyWrite and escalate rules (escalate) > allow
 *   rules and allowWrite (allow) > inside the project (allow) > escalate.
 * - Order of a read: deny rules (deny) > allowRead and allow rules
 *   (allow) > denyRead and escalate rules (escalate) > allow.
 * - Order of the network: deniedDomains and deny rules (deny) >
 *   allowedDomains and allow rules (allow) > escalate.
 * - A path that cannot be resolved with certainty escalates.
 *
 * Layer: evidence (see docs/ARCHITECTURE.md). Includes policy/evidence.h.
 */
#include "policy/evidence.h"

#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *
home_of(const struct ev *ev)
{
	return ev->call->home;
}

/* The directory a pattern names before any glob into *place (NULL: any
 * depth, a name); -1 when it does not fit or memory runs out. */
static int
pattern_place(const char *x, char **place)
{
	char pat[SBX_PATH_MAX];
	size_t n;

	*place = NULL;
	if (strlen(x) >= sizeof(pat))
		return -1;
	strcpy(pat, x);
	n = strcspn(pat, "*?[");
	while (n > 0 && pat[n - 1] != '/' && pat[n] != '\0')
		n--;
	pat[n] = '\0';
	if (n > 1 && pat[n - 1] == '/')
		pat[n - 1] = '\0';
	if (n <= 1 || strcmp(pat, "/") == 0)
		return 0;
	*place = strdup(pat);
	return *place != NULL ? 0 : -1;
}

/* 1 if pattern's literal part (lit bytes) holds base and a "/" after it. */
static size_t
base_of(const char *pat, size_t lit, const char *base)
{
	size_t bl;

	if (base == NULL || (bl = strlen(base)) <= 1 || bl >= lit ||
	    strncmp(pat, base, bl) != 0 || pat[bl] != '/')
		return 0;
	return bl;
}

static int
xent_fill(struct pol_xent *e, const char *pat, const char *home,
    const char *folder)
{
	size_t n, off, hl, fl;

	if ((e->v = strdup(pat)) == NULL)
		return -1;
	e->len = strlen(pat);
	e->lit = strcspn(pat, "*?[");
	/* for a tree: the directory before any glob, a prefix of v */
	e->tglob = pat[e->lit] != '\0';
	e->tlen = e->lit;
	if (e->tglob) {
		while (e->tlen > 0 && pat[e->tlen - 1] != '/')
			e->tlen--;
		e->tlen = e->tlen <= 1 ? 0 : e->tlen - 1;
	}
	/* below the home or the folder: only paths below it can match */
	hl = base_of(pat, e->lit, home);
	fl = base_of(pat, e->lit, folder);
	e->base = hl >= fl ? (hl > 0 ? 1 : 0) : 2;
	e->blen = hl >= fl ? hl : fl;
	n = path_pattern_need(pat, &off, &e->deep);
	if (n > 1 && (e->need = strndup(pat + off, n)) == NULL) {
		free(e->v);
		e->v = NULL;
		return -1;
	}
	if (pattern_place(pat, &e->place) < 0) {
		/* not placed at all: restricting lists then match */
		free(e->v);
		free(e->need);
		e->v = e->need = NULL;
		return -1;
	}
	return 0;
}

int
ev_cache_home(const struct ev *cev)
{
	struct ev *ev = (struct ev *)cev;               /* the flag only */
	struct policy *p = (struct policy *)ev->p;      /* the cache only */
	const char *h = home_of(ev);

	if ((h == NULL) != (p->xhome == NULL) || (h != NULL &&
	    strcmp(h, p->xhome) != 0)) {
		policy_cache_free(p);
		if (h != NULL && (p->xhome = strdup(h)) == NULL)
			return -1;
	}
	ev->xhome_ok = 1;
	return 0;
}

/*
 * Entry k of l expanded to an absolute glob (pattern_expand), or NULL
 * when it cannot be placed (no home for ~). The expansion depends only on
 * the policy's folder and the call's home: each list is expanded once and
 * kept in the policy (policy_cache_*), until a call comes with another
 * home. A policy is judged by one thread at a time.
 */
static const struct pol_xlist *
ev_xlist(const struct ev *ev, const struct plist *l)
{
	struct policy *p = (struct policy *)ev->p;
	struct pol_xlist *x = NULL;
	char pat[SBX_PATH_MAX];
	const char *h = home_of(ev);
	int j;

	/* the home was compared once for this call (ev_cache_home) */
	if (!ev->xhome_ok && ev_cache_home(ev) < 0)
		return NULL;
	for (j = 0; j < p->nxl; j++)
		if (p->xl[j].l == l)
			x = &p->xl[j];
	if (x == NULL) {
		if (p->nxl == POL_MAX_XLISTS)
			return NULL;
		x = &p->xl[p->nxl];
		x->e = calloc((size_t)l->n + 1, sizeof(*x->e));
		if (x->e == NULL)
			return NULL;
		x->l = l;
		x->n = l->n;
		p->nxl++;
		for (j = 0; j < l->n; j++)
			if (pattern_expand(l->v[j], 0, p->folder, h, pat,
			    sizeof(pat)) == 0)
				(void)xent_fill(&x->e[j], pat, h, p->folder);
	}
	return x;
}

/* NULL when entry k cannot be placed (no home for ~, out of memory):
 * restricting lists then match, fail closed. */
static const struct pol_xent *
xent(const struct pol_xlist *x, int k)
{
	return x != NULL && x->e[k].v != NULL ? &x->e[k] : NULL;
}

const struct pol_xent *
ev_pattern_ent(const struct ev *ev, const struct plist *l, int k)
{
	return xent(ev_xlist(ev, l), k);
}

const char *
ev_pattern_lit(const struct ev *ev, const struct plist *l, int k,
    size_t *litlen)
{
	const struct pol_xent *e = ev_pattern_ent(ev, l, k);

	if (e == NULL)
		return NULL;
	if (litlen != NULL)
		*litlen = e->lit;
	return e->v;
}

const char *
ev_pattern(const struct ev *ev, const struct plist *l, int k)
{
	return ev_pattern_lit(ev, l, k, NULL);
}

/*
 * The first entry of l matching path. deny: a list that restricts, where
 * an exhausted glob budget counts as a match (fail closed).
 */
static const char *
plist_match(const struct ev *ev, const struct plist *l, const char *path,
    int deny)
{
	const struct pol_xlist *x = ev_xlist(ev, l);
	const struct pol_xent *e;
	size_t len = strlen(path), ncomp = 0;
	const char *s, *h = home_of(ev);
	int k, m, below[3];

	for (s = path; *s != '\0'; s++)
		ncomp += *s == '/';
	below[0] = 1;
	below[1] = h != NULL && path_within(path, h);
	below[2] = ev->p->folder != NULL && path_within(path, ev->p->folder);
	for (k = 0; k < l->n; k++) {
		/* no home or folder to expand ~ or ./ with: a restricting
		 * list matches (fail closed), an allowing one does not */
		if ((e = xent(x, k)) == NULL) {
			if (deny)
				return l->v[k];
			continue;
		}
		/* a path that matches starts with the pattern's literal part
		 * (the home or the folder it holds: asked once, above) */
		if (!below[e->base] || (e->lit > e->blen &&
		    e->v[e->blen] != path[e->blen]) || strncmp(e->v + e->blen,
		    path + e->blen, e->lit - e->blen) != 0)
			continue;
		/* ... and holds its longest literal run ("id_rsa" of an
		 * any-depth id_rsa* pattern) */
		if (e->need != NULL && path_match_bounded(e->len, e->deep, len,
		    ncomp) && strstr(path, e->need) == NULL)
			continue;
		m = path_match(e->v, path);
		if (m > 0 || (m < 0 && deny))
			return l->v[k];
	}
	return NULL;
}

static int
is_block_device(const char *p)
{
	static const char *const devs[] = {
		"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme",
		"/dev/mmcblk", "/dev/disk", "/dev/mapper/", "/dev/md", "/dev/dm-",
		"/dev/mem", "/dev/kmem", "/dev/port", NULL,
	};
	const char *const *d;

	for (d = devs; *d != NULL; d++)
		if (strncmp(p, *d, strlen(*d)) == 0)
			return 1;
	return 0;
}

static int
is_harmless_device(const char *p)
{
	if (strncmp(p, "/dev/", 5) != 0)
		return 0;
	if (strcmp(p, "/dev/null") == 0 || strcmp(p, "/dev/stdout") == 0 ||
	    strcmp(p, "/dev/stdin") == 0 ||
	    strcmp(p, "/dev/stderr") == 0 || strcmp(p, "/dev/tty") == 0 ||
	    strcmp(p, "/dev/zero") == 0)
		return 1;
	if (strncmp(p, "/dev/fd/", 8) == 0 && p[8] >= '0' && p[8] <= '9' &&
	    strspn(p + 8, "0123456789") == strlen(p + 8))
		return 1;
	return 0;
}

static int
is_system_path(const char *p)
{
	static const char *const sys[] = {
		"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32",
		"/boot", "/sys", "/proc", "/dev", "/root", "/var/lib", "/opt",
		NULL,
	};
	const char *const *s;

	for (s = sys; *s != NULL; s++)
		if (path_within(p, *s))
			return 1;
	return 0;
}

/* /dev/tcp/HOST/PORT and /dev/udp/...: bash opens a socket. */
static int
dev_net(struct ev *ev, const char *path, const char *what)
{
	char host[256];
	const char *h, *e;
	size_t n;

	if (strncmp(path, "/dev/tcp/", 9) != 0 && strncmp(path, "/dev/udp/", 9) != 0)
		return 0;
	h = path + 9;
	e = strchr(h, '/');
	n = e ? (size_t)(e - h) : strlen(h);
	if (n == 0 || n >= sizeof(host)) {
		trig_network(ev, NULL, what);
		return 1;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	trig_network(ev, host, what);
	return 1;
}

/*
 * Below the session's temp dir (not the dir itself)? Never for what lives
 * below it but is not temporary: the home directory or the sbx config dir
 * when they are below the temp dir (HOME=/tmp/u, TMPDIR=/tmp), and files
 * whose names mark secrets. The project's protected files were judged
 * before this.
 */
static int
in_tmpdir(const struct ev *ev, const char *res)
{
	char tmp[SBX_PATH_MAX];
	const char *t = ev->call->tmpdir, *h = home_of(ev);

	if (t == NULL || t[0] != '/' ||
	    path_resolve_c(ev->pc, "/", NULL, t, tmp, sizeof(tmp)) < 0 ||
	    strcmp(tmp, "/") == 0)
		return 0;
	if (!path_within(res, tmp) || strcmp(res, tmp) == 0)
		return 0;
	if (h != NULL && path_within(h, tmp) && !path_within(tmp, h) &&
	    path_within(res, h))
		return 0;
	if (ev->p->config_dir != NULL && path_within(res, ev->p->config_dir))
		return 0;
	if (plist_match(ev, &ev->p->deny_read, res, 1) != NULL)
		return 0;
	return 1;
}

int
trig_agent_area(struct ev *ev, const char *res)
{
	char tmp[SBX_PATH_MAX];
	const char *t = ev->call->tmpdir;

	if (ev->p->folder != NULL && path_within(res, ev->p->folder))
		return 1;
	if (t != NULL && t[0] == '/' &&
	    path_resolve_c(ev->pc, "/", NULL, t, tmp, sizeof(tmp)) == 0 &&
	    strcmp(tmp, "/") != 0 && path_within(res, tmp))
		return 1;
	return plist_match(ev, &ev->p->allow_write, res, 0) != NULL ||
	    rule_find(ev->p, RK_WRITE, POLICY_ALLOW, res, ev->call) != NULL;
}

/* 1 if the directory that holds res, or the one above it, is a git dir
 * not named .git (config, hooks/x, info/attributes). */
static int git_dir_above(struct ev *ev, const char *res, size_t n,
    int depth);

static int
in_git_dir(struct ev *ev, const char *res)
{
	const char *slash = strrchr(res, '/');

	if (slash == NULL || slash == res)
		return 0;
	return git_dir_above(ev, res, (size_t)(slash - res), 1);
}

/* 1 if the directory that holds res exists now. */
static int
parent_exists(const struct ev *ev, const char *res)
{
	char dir[SBX_PATH_MAX];
	const char *slash = strrchr(res, '/');
	unsigned mode;

	if (slash == NULL || slash == res)
		return 1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - res), res);
	return path_lstat(ev->pc, dir, &mode) == 0;
}

/*
 * 1 if d (n bytes, in a buffer of SBX_PATH_MAX) is a git dir as git's
 * discovery takes one: HEAD, and objects/ or commondir (git also wants
 * refs/; asking less is stricter). d is left as it was.
 */
static int
is_git_dir(struct ev *ev, char *d, size_t n)
{
	static const char *const part[] = { "/objects", "/commondir", NULL };
	unsigned mode;
	int k, r = 0;

	if (n + 16 >= SBX_PATH_MAX)
		return 1;       /* cannot tell: fail closed */
	/* a directory that is not there holds nothing (resolving the path
	 * asked already: the answer is in the cache) */
	if (path_lstat(ev->pc, d, &mode) < 0 || !S_ISDIR(mode))
		return 0;
	memcpy(d + n, "/HEAD", 6);
	if (path_lstat(ev->pc, d, &mode) == 0)
		for (k = 0; part[k] != NULL && !r; k++) {
			memcpy(d + n, part[k], strlen(part[k]) + 1);
			r = path_lstat(ev->pc, d, &mode) == 0;
		}
	d[n] = '\0';
	return r;
}

/*
 * 1 if res (resolved) is, or lies in, a git dir not named .git, up to
 * depth components above it: its config, hooks/, info/attributes and
 * commondir make git run commands, and the policy protects them only in
 * directories named .git.
 */
static int
git_dir_above(struct ev *ev, const char *res, size_t n, int depth)
{
	char d[SBX_PATH_MAX], *slash;
	size_t b;
	int k;

	if (n >= sizeof(d))
		return 0;
	memcpy(d, res, n);
	d[n] = '\0';
	for (k = 0; k <= depth && n > 1; k++) {
		slash = memrchr(d, '/', n);
		b = slash ? (size_t)(slash - d) + 1 : 0;  /* d + b: the last component */
		if (!(n - b == 4 && memcmp(d + b, ".git", 4) == 0) &&
		    is_git_dir(ev, d, n))
			return 1;
		if (!slash || b <= 1)
			break;
		n = b - 1;
		*slash = '\0';
	}
	return 0;
}

int
trig_git_dir(struct ev *ev, const char *res, int depth)
{
	return git_dir_above(ev, res, strlen(res), depth);
}

void
trig_write(struct ev *ev, const char *path, const char *what)
{
	char res[SBX_PATH_MAX];
	const struct rule *r;
	const char *m;

	if (path == NULL || path[0] == '\0') {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: unknown target",
		    "%s writes to a file that is only known at run time", what);
		return;
	}
	if (is_harmless_device(path))
		return;
	if (dev_net(ev, path, what))
		return;
	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, home_of(ev), path, res, sizeof(res)) < 0) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: unresolved path",
		    "%s writes to %s, which cannot be resolved with certainty",
		    what, path);
		return;
	}
	if (is_harmless_device(res))
		return;
	/* remember what the line changes (mkdir only creates): a later cd
	 * into it may fail */
	if (strcmp(what, "mkdir") != 0) {
		if (strlen(res) < sizeof(ev->wpaths[0]) &&
		    ev->nwpaths < SBX_EV_MAX_WPATHS)
			strcpy(ev->wpaths[ev->nwpaths], res);
		else
			ev->nwpaths = SBX_EV_MAX_WPATHS;        /* then: unsure */
		ev->nwpaths++;
	}
	if (ev->made_link && !parent_exists(ev, res)) {
		/* ln -s .sandbox s && echo > s/policy.json: s is not there
		 * yet, and may be a link the line made */
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: link in line",
		    "%s writes to %s, through a directory that does not exist yet "
		    "and may be a link made earlier in the line", what, path);
		return;
	}
	if ((m = plist_match(ev, &ev->p->self_write, res, 1)) != NULL) {
		ev_factor(ev, F_PROTECTED);
		ev_note(ev, POLICY_DENY, "write", "self-protection", "%s writes to "
		    "%s, which sbx protects (%s): no tool may change it", what,
		    res, m);
		return;
	}
	if ((r = rule_find(ev->p, RK_WRITE, POLICY_DENY, res, ev->call)) != NULL) {
		ev_note(ev, POLICY_DENY, "write", r->text,
		    "%s writes to %s, which the policy denies", what, res);
		return;
	}
	if (is_block_device(res)) {
		ev_factor(ev, F_CATASTROPHIC | F_DESTRUCTIVE);
		ev_note(ev, POLICY_DENY, "write", "builtin: block device",
		    "%s writes to the device %s", what, res);
		return;
	}
	if ((m = plist_match(ev, &ev->p->deny_write, res, 1)) != NULL) {
		if (path_within(res, "/") && ev->p->folder != NULL &&
		    !path_within(res, ev->p->folder))
			ev_factor(ev, F_WRITE_OUT);
		ev_note(ev, POLICY_ESCALATE, "write", "filesystem.denyWrite",
		    "%s writes to %s (denyWrite %s)", what, res, m);
		return;
	}
	if ((r = rule_find(ev->p, RK_WRITE, POLICY_ESCALATE, res, ev->call)) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "write", r->text,
		    "%s writes to %s, which the policy escalates", what, res);
		return;
	}
	if (rule_find(ev->p, RK_WRITE, POLICY_ALLOW, res, ev->call) != NULL ||
	    plist_match(ev, &ev->p->allow_write, res, 0) != NULL ||
	    (ev->p->folder != NULL && path_within(res, ev->p->folder)) ||
	    in_tmpdir(ev, res)) {
		/* allowed, but not into a git dir (asked only here: what
		 * escalates anyway needs no lstat) */
		if (in_git_dir(ev, res)) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "write",
			    "builtin: git repository", "%s writes to %s, in a git "
			    "repository's own directory (a bare repository: HEAD, "
			    "objects/): its config and hooks make git run commands",
			    what, res);
		}
		return;
	}
	ev_factor(ev, F_WRITE_OUT);
	if (is_system_path(res))
		ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "write", "builtin: write outside",
	    "%s writes to %s, outside the project", what, res);
}

/*
 * 1 if a write to the tree at res reaches something pattern protects:
 * res is the parent of what a glob pattern names, or an ancestor of it.
 * Patterns that start with a glob (the any-depth ones, like the sbx binaries)
 * are left to the direct check: they cannot be placed under a given tree.
 */
static int
tree_reaches(const struct pol_xent *e, const char *res)
{
	size_t rl = strlen(res);

	if (e == NULL)
		return 1;       /* cannot tell: fail closed */
	if (e->tlen == 0)
		return 0;
	/* the place (a prefix of the pattern) lies at or below res */
	if (!(rl == 1 && res[0] == '/')) {
		if (rl > e->tlen || memcmp(e->v, res, rl) != 0 ||
		    (rl < e->tlen && e->v[rl] != '/'))
			return 0;
	}
	return e->tlen != rl || e->tglob;
}

void
trig_write_tree(struct ev *ev, const char *path, const char *what,
    int filtered)
{
	const struct pol_xlist *x;
	char res[SBX_PATH_MAX];
	int k;

	if (path != NULL && path[0] != '\0' && !is_harmless_device(path) &&
	    (path[0] == '/' || path[0] == '~' || ev->cwd_known) &&
	    path_resolve_c(ev->pc, ev->cwd, home_of(ev), path, res, sizeof(res)) == 0) {
		x = ev_xlist(ev, &ev->p->self_write);
		for (k = 0; k < ev->p->self_write.n; k++)
			if (tree_reaches(xent(x, k), res)) {
				ev_factor(ev, F_PROTECTED);
				ev_note(ev, filtered ? POLICY_ESCALATE : POLICY_DENY,
				    "write", "self-protection",
				    "%s changes %s, which holds files sbx protects (%s)",
				    what, res, ev->p->self_write.v[k]);
				return;
			}
		if (trig_agent_area(ev, res) && trig_git_dir(ev, res, 0)) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "write",
			    "builtin: git repository", "%s changes %s, a git "
			    "repository's own directory (a bare repository), whose "
			    "config and hooks make git run commands", what, res);
		}
		x = ev_xlist(ev, &ev->p->deny_write);
		for (k = 0; k < ev->p->deny_write.n; k++)
			if (tree_reaches(xent(x, k), res)) {
				ev_note(ev, POLICY_ESCALATE, "write",
				    "filesystem.denyWrite", "%s changes %s, which holds "
				    "%s (denyWrite)", what, res, ev->p->deny_write.v[k]);
				break;
			}
	}
	trig_write(ev, path, what);
}

void
trig_read(struct ev *ev, const char *path, const char *what)
{
	char res[SBX_PATH_MAX];
	const struct rule *r;
	const char *m;

	if (path == NULL || path[0] == '\0')
		return;
	if (is_harmless_device(path) || dev_net(ev, path, what))
		return;
	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, home_of(ev), path, res, sizeof(res)) < 0) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "read", "builtin: unresolved path",
		    "%s reads %s, which cannot be resolved with certainty", what,
		    path);
		return;
	}
	if (is_block_device(res)) {
		ev_factor(ev, F_SECRET);
		ev_note(ev, POLICY_ESCALATE, "read", "builtin: raw device",
		    "%s reads the raw device %s", what, res);
		return;
	}
	if ((r = rule_find(ev->p, RK_READ, POLICY_DENY, res, ev->call)) != NULL) {
		ev_factor(ev, F_SECRET);
		ev_note(ev, POLICY_DENY, "read", r->text,
		    "%s reads %s, which the policy denies", what, res);
		return;
	}
	if (plist_match(ev, &ev->p->allow_read, res, 0) != NULL ||
	    rule_find(ev->p, RK_READ, POLICY_ALLOW, res, ev->call) != NULL)
		return;
	if ((m = plist_match(ev, &ev->p->deny_read, res, 1)) != NULL) {
		ev_factor(ev, F_SECRET);
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads %s, which may hold secrets (denyRead %s)", what, res,
		    m);
		return;
	}
	if ((r = rule_find(ev->p, RK_READ, POLICY_ESCALATE, res, ev->call)) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "read", r->text,
		    "%s reads %s, which the policy escalates", what, res);
		return;
	}
}

/*
 * 1 if path names a secret (denyRead, not allowRead), or with tree, a tree
 * that holds a denyRead place. Nothing is recorded: this only asks.
 */
int
trig_is_secret(const struct ev *ev, const char *path, int tree)
{
	char res[SBX_PATH_MAX];
	const struct pol_xlist *x;
	const struct pol_xent *e;
	int k;

	if (path == NULL || path[0] == '\0' ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, home_of(ev), path, res, sizeof(res)) < 0)
		return 0;
	if (plist_match(ev, &ev->p->allow_read, res, 0) != NULL)
		return 0;
	if (plist_match(ev, &ev->p->deny_read, res, 1) != NULL)
		return 1;
	x = tree ? ev_xlist(ev, &ev->p->deny_read) : NULL;
	for (k = 0; tree && k < ev->p->deny_read.n; k++)
		if ((e = xent(x, k)) != NULL &&
		    e->place != NULL && path_within(e->place, res))
			return 1;
	return 0;
}

/* What tree_entry looks for, and what it found. */
struct tree_scan {
	const struct ev *ev;
	const char *root;
	int how;
	const struct tree_names *names; /* NULL: every file is read */
	const char *pat;                /* the denyRead entry it matched */
	char found[SBX_PATH_MAX];
};

/* An entry of the tree a walker reads: 1 when it is a denyRead path. */
static int
tree_entry(void *arg, const char *path, unsigned mode)
{
	struct tree_scan *t = arg;
	const struct ev *ev = t->ev;
	char res[SBX_PATH_MAX];
	unsigned tm;
	int k;

	if (t->names != NULL && S_ISDIR(mode)) {
		const char *base = strrchr(path, '/');

		base = base != NULL ? base + 1 : path;
		for (k = 0; k < t->names->nskip; k++)
			if (fnmatch(t->names->skip[k], base, 0) == 0)
				return PATH_WALK_PRUNE;
	}
	if (t->names != NULL && t->names->n > 0) {
		/* only files with these names are read (what is below a
		 * directory is looked at on its own) */
		const char *base = strrchr(path, '/');

		if (S_ISDIR(mode))
			return 0;
		base = base != NULL ? base + 1 : path;
		for (k = 0; k < t->names->n; k++)
			if (fnmatch(t->names->v[k], base, t->names->fold ?
			    FNM_CASEFOLD : 0) == 0)
				break;
		if (k == t->names->n)
			return 0;
	}
	if (S_ISLNK(mode)) {
		if (!(t->how & TREE_FOLLOW))
			return 0;       /* a link inside is not followed */
		/* grep -R, rg -L: the link's target is read */
		if (path_resolve_c(ev->pc, "/", home_of(ev), path, res,
		    sizeof(res)) < 0) {
			snprintf(t->found, sizeof(t->found), "%s", path);
			return -1;
		}
		if (path_within(res, t->root))
			return 0;       /* walked anyway */
		path = res;
		if (path_lstat(ev->pc, res, &tm) == 0 && S_ISDIR(tm) &&
		    plist_match(ev, &ev->p->deny_read, res, 1) == NULL) {
			snprintf(t->found, sizeof(t->found), "%s", res);
			return -1;      /* a tree outside: not walked here */
		}
	}
	/* denyRead first: most entries match none, and allowRead is asked
	 * only of those that do */
	if ((t->pat = plist_match(ev, &ev->p->deny_read, path, 1)) != NULL &&
	    plist_match(ev, &ev->p->allow_read, path, 0) == NULL) {
		snprintf(t->found, sizeof(t->found), "%s", path);
		return 1;
	}
	t->pat = NULL;
	return 0;
}

void
pol_walks_free(struct policy *p)
{
	int k;

	for (k = 0; p->walks != NULL && k < p->nwalks; k++) {
		free(p->walks[k].key);
		free(p->walks[k].found);
	}
	free(p->walks);
	p->walks = NULL;
	p->nwalks = 0;
}

static void gitignore_skips(const char *dir, struct tree_names *tn,
    char *buf, size_t bufsz);

/* path_walk for t, skipping what .gitignore names (TREE_GITIGNORE) */
static int
tree_walk_gi(struct tree_scan *t)
{
	const struct tree_names *names = t->names;
	struct tree_names gi;
	char *buf = NULL;
	int rc;

	if (t->how & TREE_GITIGNORE) {
		if (names != NULL)
			gi = *names;
		else
			memset(&gi, 0, sizeof(gi));
		if ((buf = malloc(65536)) != NULL)
			gitignore_skips(t->root, &gi, buf, 65536);
		if (buf != NULL && gi.nskip > (names != NULL ? names->nskip : 0))
			t->names = &gi;
	}
	rc = path_walk(t->root, ((t->how & TREE_NOHIDDEN) ?
	    PATH_WALK_NOHIDDEN : 0) | ((t->how & TREE_FLAT) ? PATH_WALK_FLAT :
	    0), TREE_MAX, tree_entry, t);
	t->names = names;
	free(buf);
	return rc;
}

void
policy_forget_fs(const struct policy *cp)
{
	if (cp != NULL)
		pol_walks_free((struct policy *)cp);   /* the cache only */
}

/*
 * path_walk for t, or what it found the last time while this policy
 * lives (a policy serves one call: the file system is taken as it is
 * when the call is judged, as lstat's answers are).
 */
static int
tree_walk_memo(struct tree_scan *t)
{
	struct policy *p = (struct policy *)t->ev->p;   /* the cache only */
	char key[SBX_PATH_MAX + 256];
	struct pol_walk *w;
	size_t o;
	int k, rc, n;

	n = snprintf(key, sizeof(key), "%d:%d:%s", t->how, t->names != NULL ?
	    t->names->fold : -1, t->root);
	o = n < 0 ? sizeof(key) : (size_t)n;
	for (k = 0; t->names != NULL && k < t->names->n && o < sizeof(key);
	    k++) {
		n = snprintf(key + o, sizeof(key) - o, "%c%s", '\0' + 1,
		    t->names->v[k]);
		o += n < 0 ? sizeof(key) : (size_t)n;
	}
	for (k = 0; t->names != NULL && k < t->names->nskip &&
	    o < sizeof(key); k++) {
		n = snprintf(key + o, sizeof(key) - o, "%c%s", '\0' + 2,
		    t->names->skip[k]);
		o += n < 0 ? sizeof(key) : (size_t)n;
	}
	if (o < sizeof(key))
		for (k = 0; p->walks != NULL && k < p->nwalks; k++)
			if (strcmp(p->walks[k].key, key) == 0) {
				w = &p->walks[k];
				snprintf(t->found, sizeof(t->found), "%s",
				    w->found != NULL ? w->found : "");
				t->pat = w->pat;
				return w->rc;
			}
	rc = tree_walk_gi(t);
	if (o >= sizeof(key))
		return rc;
	if (p->walks == NULL && (p->walks = calloc(POL_MAX_WALKS,
	    sizeof(*p->walks))) == NULL)
		return rc;
	if (p->nwalks == POL_MAX_WALKS) {
		/* full: the oldest goes */
		free(p->walks[0].key);
		free(p->walks[0].found);
		memmove(p->walks, p->walks + 1, (POL_MAX_WALKS - 1) *
		    sizeof(*p->walks));
		p->nwalks--;
	}
	w = &p->walks[p->nwalks];
	w->key = strdup(key);
	w->found = strdup(t->found);
	w->pat = t->pat;
	w->rc = rc;
	if (w->key == NULL || w->found == NULL) {
		free(w->key);
		free(w->found);
		return rc;
	}
	p->nwalks++;
	return rc;
}

/*
 * A read of every file below path (grep -r DIR, rg, find -exec cat, tar c
 * DIR): a read of every denyRead path below it. A pattern placed below
 * it (~/.ssh below ~) escalates at once; a pattern at any depth
 * (.env*, *.pem) can match below any directory, so the tree is looked
 * at (path_walk, at most TREE_MAX entries): a denyRead entry the walker
 * reads escalates, and so does a tree too large to look at. how:
 * TREE_NOHIDDEN, the walker skips names starting with "." (rg, unless
 * --hidden/-uu); TREE_FOLLOW, it follows links (grep -R, rg -L);
 * TREE_NAMES, it lists names only (rg --files): placed patterns only.
 * names: the walker reads only files with one of these names (find
 * -name, grep --include); NULL: every file.
 */
void
trig_read_tree_how(struct ev *ev, const char *path, const char *what, int how)
{
	trig_read_tree_names(ev, path, what, how, NULL);
}

/*
 * rg skips what .gitignore names (in a git repository: DIR/.git is
 * there). From DIR/.gitignore, the lines that name a directory at any
 * depth by a plain name ("node_modules", "target/"): rg does not enter
 * those, and nothing below an ignored directory can be re-included. A
 * file with a negation ("!x"), or larger than 64 KiB, gives nothing;
 * lines with globs, slashes inside or escapes are left out (the look
 * then reads more than rg). names: its skip list, filled from buf.
 */
static void
gitignore_skips(const char *dir, struct tree_names *tn, char *buf,
    size_t bufsz)
{
	char path[SBX_PATH_MAX];
	struct stat st;
	char *line, *next, *e;
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/.git", dir) >= (int)sizeof(path) ||
	    lstat(path, &st) < 0)
		return;
	if (snprintf(path, sizeof(path), "%s/.gitignore", dir) >=
	    (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size >= bufsz ||
	    (n = read(fd, buf, bufsz - 1)) < 0 || n != st.st_size) {
		close(fd);
		return;
	}
	close(fd);
	buf[n] = '\0';
	if (buf[0] == '!' || strstr(buf, "\n!") != NULL)
		return;         /* a negation: not read */
	for (line = buf; line != NULL && tn->nskip < TREE_NAMES_MAX;
	    line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		e = line + strlen(line);
		if (e > line && e[-1] == '\r')
			*--e = '\0';
		if (e > line && e[-1] == '/')
			*--e = '\0';
		if (line[0] == '\0' || strcmp(line, ".") == 0 ||
		    strcmp(line, "..") == 0 || strspn(line, "abcdefghijklmnop"
		    "qrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(line))
			continue;
		tn->skip[tn->nskip++] = line;
	}
}

/*
 * Whether denyRead paths lie below path (resolved into res): 0 none; 1 a
 * placed pattern below it (*kp, its entry); otherwise path_walk's answer
 * for the patterns at any depth (1 + PATH_WALK_*, or 2 for a file found,
 * 3 for a link out of the tree; t says what).
 */
static int
tree_look(const struct ev *ev, const char *path, int how,
    const struct tree_names *names, char *res, size_t ressz,
    struct tree_scan *t, int *kp)
{
	const struct pol_xlist *x;
	const struct pol_xent *e;
	int k, walk = 0, rc;
	unsigned mode;

	if (path == NULL || path[0] == '\0' ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, home_of(ev), path, res, ressz) < 0)
		return 0;
	x = ev_xlist(ev, &ev->p->deny_read);
	for (k = 0; k < ev->p->deny_read.n; k++) {
		/* the fixed part of the pattern, before any glob (any depth:
		 * a name, not a place) */
		if ((e = xent(x, k)) == NULL)
			continue;
		if (e->place == NULL || path_within(res, e->place)) {
			walk = 1;       /* it may match anywhere below */
			continue;
		}
		if (path_within(e->place, res) && strcmp(e->place, res) != 0 &&
		    plist_match(ev, &ev->p->allow_read, e->place, 0) == NULL) {
			*kp = k;
			return 1;
		}
	}
	if (!walk || (how & TREE_NAMES) || path_lstat(ev->pc, res, &mode) < 0 ||
	    !S_ISDIR(mode))
		return 0;
	memset(t, 0, sizeof(*t));
	t->ev = ev;
	t->root = res;
	t->how = how;
	t->names = names;
	rc = tree_walk_memo(t);
	return rc == 0 ? 0 : rc == 1 ? 2 : rc == -1 ? 3 : 4 + (rc ==
	    PATH_WALK_BIG);
}

void
trig_read_tree_names(struct ev *ev, const char *path, const char *what,
    int how, const struct tree_names *names)
{
	char res[SBX_PATH_MAX];
	struct tree_scan t;
	int k = 0, rc;

	trig_read(ev, path, what);
	if ((rc = tree_look(ev, path, how, names, res, sizeof(res), &t,
	    &k)) == 0)
		return;
	ev_factor(ev, F_SECRET);
	if (rc == 1)
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads every file below %s, which holds %s (denyRead)",
		    what, res, ev->p->deny_read.v[k]);
	else if (rc == 2)
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads every file below %s, and %s may hold secrets "
		    "(denyRead %s)", what, res, t.found, t.pat);
	else if (rc == 3)
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads every file below %s and follows the link %s out "
		    "of it", what, res, t.found);
	else
		ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
		    "%s reads every file below %s, which %s: it may hold denyRead "
		    "files (.env, keys) the policy did not look for", what, res,
		    rc == 5 ? "holds too many entries to look at" :
		    "cannot be looked at");
}

/*
 * A lister of the tree below path (find, ls -R, fd, rg --files): 1 when
 * the names it prints may name denyRead files (what reads them then reads
 * secrets: find . | xargs cat), as trig_read_tree_names would escalate a
 * read of the tree.
 */
int
trig_tree_secret(struct ev *ev, const char *path, int how,
    const struct tree_names *names)
{
	char res[SBX_PATH_MAX];
	struct tree_scan t;
	int k = 0;

	return tree_look(ev, path, how & ~TREE_NAMES, names, res, sizeof(res),
	    &t, &k) != 0;
}

void
trig_read_tree(struct ev *ev, const char *path, const char *what)
{
	trig_read_tree_how(ev, path, what, 0);
}

void
trig_network(struct ev *ev, const char *host, const char *what)
{
	trig_network_port(ev, host, 0, what);
}

void
trig_network_port(struct ev *ev, const char *host, int port, const char *what)
{
	const struct rule *r;
	int k;

	ev_factor(ev, F_NETWORK);
	if (host == NULL || host[0] == '\0') {
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "%s uses the network (host not known before it runs)", what);
		return;
	}
	for (k = 0; k < ev->p->denied_domains.n; k++)
		if (net_entry_match(ev->p->denied_domains.v[k], host, port, 1)) {
			ev_note(ev, POLICY_DENY, "network", "network.deniedDomains",
			    "%s contacts %s, a denied domain", what, host);
			return;
		}
	if ((r = rule_find(ev->p, RK_FETCH, POLICY_DENY, host, ev->call)) != NULL) {
		ev_note(ev, POLICY_DENY, "network", r->text,
		    "%s contacts %s, which the policy denies", what, host);
		return;
	}
	if ((r = rule_find(ev->p, RK_FETCH, POLICY_ESCALATE, host, ev->call)) != NULL) {
		ev_note(ev, POLICY_ESCALATE, "network", r->text,
		    "%s contacts %s, which the policy escalates", what, host);
		return;
	}
	for (k = 0; k < ev->p->allowed_domains.n; k++)
		if (net_entry_match(ev->p->allowed_domains.v[k], host, port, 0))
			return;
	if (rule_find(ev->p, RK_FETCH, POLICY_ALLOW, host, ev->call) != NULL)
		return;
	ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
	    "%s contacts %s, which is not in network.allowedDomains", what, host);
}

int
url_host(const char *url, char *host, size_t hostsz)
{
	const char *p = url, *e, *at;
	size_t n;

	p = strstr(url, "://");
	if (p == NULL)
		return -1;
	p += 3;
	e = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(e - p));
	if (at != NULL)
		p = at + 1;
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(e - p));

		if (rb == NULL)
			return -1;
		p++;
		n = (size_t)(rb - p);
	} else {
		const char *colon = memchr(p, ':', (size_t)(e - p));

		n = (size_t)((colon ? colon : e) - p);
	}
	if (n == 0 || n >= hostsz)
		return -1;
	memcpy(host, p, n);
	host[n] = '\0';
	for (n = 0; host[n] != '\0'; n++) {
		if (!isalnum((unsigned char)host[n]) && host[n] != '.' &&
		    host[n] != '-' && host[n] != '_' && host[n] != ':')
			return -1;
		host[n] = (char)tolower((unsigned char)host[n]);
	}
	return 0;
}
