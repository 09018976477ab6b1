/*
 * path.c - kernel-like path resolution and rule globs (see path.h).
 *
 * Rules:
 * - MUST NOT open files: lstat and readlink only.
 * - MUST bound every loop: at most 40 symlinks per resolution, a step
 *   budget for glob backtracking (exhausted budget = no match; callers
 *   that deny on a match check with their own fail-closed logic).
 */
#include "policy/path.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40

int
path_normalize(const char *in, char *out, size_t outsz)
{
	size_t o = 1, n;
	const char *p = in;

	if (in[0] != '/' || outsz < 2)
		return -1;
	out[0] = '/';
	out[1] = '\0';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			out[o] = '\0';
		} else {
			if (o + 1 + n + 1 > outsz)
				return -1;
			if (o > 1)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
			out[o] = '\0';
		}
		p += n;
	}
	return 0;
}

int
path_within(const char *path, const char *dir)
{
	size_t n;

	if (dir[0] == '/' && dir[1] == '\0')
		return path[0] == '/';
	/* most paths differ in their first bytes */
	if (dir[0] != '\0' && (path[0] != dir[0] || path[1] != dir[1]))
		return 0;
	n = strlen(dir);
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/';
}

/*
 * /proc/self/cwd, /proc/thread-self/root, /proc/self/fd/...: they describe
 * the process that opens them (the command's), not the one that resolves
 * them here. Such a path cannot be resolved with certainty. ($$ in a word
 * is a variable: its value is not known either.)
 */
static int
proc_own(const char *cur, const char *rest)
{
	static const char *const dyn[] = {
		"cwd", "root", "fd", "exe", "map_files", "task", "fdinfo", NULL,
	};
	const char *a, *b;
	size_t n;
	int k;

	if (strncmp(cur, "/proc/", 6) != 0)
		return 0;
	/* /proc/self/...: the link names the resolving process */
	if ((strcmp(cur, "/proc/self") == 0 ||
	    strcmp(cur, "/proc/thread-self") == 0) && rest[strspn(rest, "/")] != '\0')
		return 1;
	a = cur + 6;
	b = strchr(a, '/');
	if (b == NULL || strchr(b + 1, '/') != NULL)
		return 0;
	n = (size_t)(b - a);
	if (!((n == 4 && strncmp(a, "self", 4) == 0) ||
	    (n == 11 && strncmp(a, "thread-self", 11) == 0)))
		return 0;
	for (k = 0; dyn[k] != NULL; k++)
		if (strcmp(b + 1, dyn[k]) == 0)
			return 1;
	return 0;
}

void
path_cache_init(struct path_cache *pc)
{
	pc->seed = NULL;
	pc->n = pc->next = 0;
}

/* The entry of pc for path (len bytes), or NULL. */
static const struct path_cached *
cache_find(const struct path_cache *pc, const char *path, size_t len)
{
	int k;

	for (k = 0; k < pc->n; k++)
		if (pc->e[k].len == len && memcmp(pc->e[k].path, path,
		    len) == 0)
			return &pc->e[k];
	return NULL;
}

/* ENOENT or ENOTDIR when a directory above path is cached as missing
 * (or as not a directory), else 0. */
static int
cached_missing_above(const struct path_cache *pc, const char *path,
    size_t len)
{
	const struct path_cached *c;
	size_t n;

	for (n = len; n > 1; n--) {
		if (path[n - 1] != '/' || n - 1 == 0)
			continue;
		if ((pc->seed == NULL || (c = cache_find(pc->seed, path,
		    n - 1)) == NULL) && (c = cache_find(pc, path, n - 1)) ==
		    NULL)
			continue;
		if (c->err != 0)
			return c->err == ENOTDIR ? ENOTDIR : ENOENT;
		return S_ISDIR(c->mode) || S_ISLNK(c->mode) ? 0 : ENOTDIR;
	}
	return 0;
}

int
path_lstat(struct path_cache *pc, const char *path, unsigned *mode)
{
	const struct path_cached *c = NULL;
	struct path_cached *e;
	struct stat st;
	size_t len = strlen(path);
	int rc, err;

	if (pc != NULL && len < PATH_CACHE_LEN &&
	    ((pc->seed != NULL && (c = cache_find(pc->seed, path, len)) !=
	    NULL) || (c = cache_find(pc, path, len)) != NULL)) {
		if (c->err != 0) {
			errno = c->err;
			return -1;
		}
		*mode = c->mode;
		return 0;
	}
	/* below a directory known to be missing (or not a directory),
	 * nothing is there: no need to ask */
	if (pc != NULL && (err = cached_missing_above(pc, path, len)) != 0) {
		errno = err;
		return -1;
	}
	rc = lstat(path, &st);
	err = rc < 0 ? errno : 0;
	if (rc == 0)
		*mode = st.st_mode;
	if (pc == NULL || len >= PATH_CACHE_LEN ||
	    (rc < 0 && err != ENOENT && err != ENOTDIR))
		return rc;
	if (pc->n < PATH_CACHE_N)
		e = &pc->e[pc->n++];
	else {
		e = &pc->e[pc->next];
		pc->next = (pc->next + 1) % PATH_CACHE_N;
	}
	e->len = len;
	memcpy(e->path, path, len + 1);
	e->err = err;
	e->mode = rc == 0 ? st.st_mode : 0;
	errno = err;
	return rc;
}

/* out = a "/" b; -1 when it does not fit. */
static int
join(char *out, size_t outsz, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);

	if (al + 1 + bl >= outsz)
		return -1;
	memcpy(out, a, al);
	out[al] = '/';
	memcpy(out + al + 1, b, bl + 1);
	return 0;
}

int
path_resolve(const char *cwd, const char *home, const char *in, char *out,
    size_t outsz)
{
	return path_resolve_c(NULL, cwd, home, in, out, outsz);
}

/*
 * Walks rest (a relative or absolute path) from the directory in out,
 * following symlinks. out holds an absolute, resolved prefix.
 */
int
path_resolve_c(struct path_cache *pc, const char *cwd, const char *home,
    const char *in, char *out, size_t outsz)
{
	char work[SBX_PATH_MAX * 2], link[SBX_PATH_MAX], comp[NAME_MAX + 1];
	char cur[SBX_PATH_MAX];
	size_t wlen, n, clen;
	const char *p;
	int links = 0, exists = 1;
	unsigned mode;
	ssize_t ln;

	if (in == NULL || in[0] == '\0')
		return -1;
	/* Build the full path to walk. */
	if (in[0] == '~') {
		if (in[1] != '\0' && in[1] != '/')
			return -1;      /* ~user: not known here */
		if (home == NULL || home[0] != '/')
			return -1;
		if (join(work, sizeof(work), home, in + 1) < 0)
			return -1;
	} else if (in[0] == '/') {
		if (strlen(in) >= sizeof(work))
			return -1;
		strcpy(work, in);
	} else {
		if (cwd == NULL || cwd[0] != '/')
			return -1;
		if (join(work, sizeof(work), cwd, in) < 0)
			return -1;
	}
	strcpy(cur, "/");
	p = work;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			return -1;
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *s = strrchr(cur, '/');

			if (s == cur)
				cur[1] = '\0';
			else if (s != NULL)
				*s = '\0';
			/* back in a directory that exists (missing/../link): what
			 * follows may be a symlink again. The kernel would need
			 * "missing" to exist, and the same line may create it. */
			if (!exists && path_lstat(pc, cur, &mode) == 0)
				exists = 1;
			continue;
		}
		clen = strlen(cur);
		if (clen + 1 + n + 1 > sizeof(cur))
			return -1;
		if (clen > 1)
			cur[clen++] = '/';
		memcpy(cur + clen, comp, n + 1);
		if (proc_own(cur, p))
			return -1;
		if (!exists)
			continue;
		if (path_lstat(pc, cur, &mode) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				return -1;
			exists = 0;
			continue;
		}
		if (!S_ISLNK(mode))
			continue;
		if (++links > MAX_LINKS)
			return -1;
		ln = readlink(cur, link, sizeof(link) - 1);
		if (ln < 0)
			return -1;
		link[ln] = '\0';
		/* Replace the link by its target, then walk the rest. */
		wlen = strlen(p);
		if ((size_t)ln + 1 + wlen + 1 > sizeof(work))
			return -1;
		{
			char rest[SBX_PATH_MAX * 2];

			memcpy(rest, p, wlen + 1);
			memcpy(work, link, (size_t)ln);
			work[ln] = '/';
			memcpy(work + ln + 1, rest, wlen + 1);
		}
		p = work;
		/* the link's own component is replaced: back to its parent */
		{
			char *s = strrchr(cur, '/');

			if (s == cur)
				cur[1] = '\0';
			else
				*s = '\0';
		}
		if (link[0] == '/')
			strcpy(cur, "/");
	}
	if (strlen(cur) + 1 > outsz)
		return -1;
	strcpy(out, cur);
	return 0;
}

/* ---- glob -------------------------------------------------------------- */

/* Matches one component [ps,pe) against [s,se). */
static int
comp_match(const char *ps, const char *pe, const char *s, const char *se,
    long *budget)
{
	const char *star_p = NULL, *star_s = NULL;

	while (s < se) {
		if (--*budget < 0)
			return 0;
		if (ps < pe && *ps == '*') {
			star_p = ++ps;
			star_s = s;
			continue;
		}
		if (ps < pe && *ps == '?') {
			ps++;
			s++;
			continue;
		}
		if (ps < pe && *ps == '[') {
			const char *q = ps + 1;
			int neg = 0, hit = 0;

			if (q < pe && (*q == '!' || *q == '^')) {
				neg = 1;
				q++;
			}
			while (q < pe && (*q != ']' || q == ps + 1 + neg)) {
				if (q + 2 < pe && q[1] == '-' && q[2] != ']') {
					if (*s >= q[0] && *s <= q[2])
						hit = 1;
					q += 3;
				} else {
					if (*s == *q)
						hit = 1;
					q++;
				}
			}
			if (q < pe && hit != neg) {
				ps = q + 1;
				s++;
				continue;
			}
		} else if (ps < pe && *ps == *s) {
			ps++;
			s++;
			continue;
		}
		if (star_p == NULL)
			return 0;
		ps = star_p;
		s = ++star_s;
	}
	while (ps < pe && *ps == '*')
		ps++;
	return ps == pe;
}

static int
glob_rec(const char *p, const char *s, long *budget)
{
	const char *pe, *se;

	for (;;) {
		if (--*budget < 0)
			return 0;
		while (*p == '/')
			p++;
		while (*s == '/')
			s++;
		if (*p == '\0')
			return 1;       /* pattern exhausted: s is at or below */
		pe = p + strcspn(p, "/");
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			/* ** : zero or more components */
			for (;;) {
				if (glob_rec(pe, s, budget))
					return 1;
				if (*s == '\0' || *budget < 0)
					return 0;
				s += strcspn(s, "/");
				while (*s == '/')
					s++;
			}
		}
		if (*s == '\0')
			return 0;
		se = s + strcspn(s, "/");
		if (!comp_match(p, pe, s, se, budget))
			return 0;
		p = pe;
		s = se;
	}
}

#define GLOB_BUDGET 200000L

int
path_match(const char *pattern, const char *path)
{
	long budget = GLOB_BUDGET;
	int m;

	if (pattern[0] != '/' || path[0] != '/')
		return 0;
	m = glob_rec(pattern, path, &budget);
	return budget < 0 ? -1 : m;
}

size_t
path_pattern_need(const char *pattern, size_t *off, int *deep)
{
	const char *p = pattern, *run = NULL, *pe, *q;
	size_t best = 0, bestoff = 0;
	int neg;

	*deep = 0;
	while (*p != '\0') {
		if (*p == '/') {
			p++;
			continue;
		}
		pe = p + strcspn(p, "/");
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			(*deep)++;
			p = pe;
			continue;
		}
		/* literal runs of this component, as comp_match reads it */
		run = p;
		while (p <= pe) {
			if (p < pe && *p != '*' && *p != '?' && *p != '[') {
				p++;
				continue;
			}
			if ((size_t)(p - run) > best) {
				best = (size_t)(p - run);
				bestoff = (size_t)(run - pattern);
			}
			if (p == pe)
				break;
			if (*p == '[') {
				/* a class: its letters are no literal; unclosed,
				 * the rest of the component is left out */
				q = p + 1;
				neg = q < pe && (*q == '!' || *q == '^');
				q += neg;
				while (q < pe && (*q != ']' || q == p + 1 + neg))
					q++;
				p = q < pe ? q + 1 : pe;
			} else
				p++;
			run = p;
		}
		p = pe;
	}
	*off = bestoff;
	return best;
}

/*
 * glob_rec tries every component after a "**" (nested: a product), and
 * comp_match costs at most (component + 1) * (its pattern + 1) steps, so
 * the steps stay below (ncomp + 2)^deep * (pathlen + 2) * (patlen + 2),
 * with some to spare for the loop itself.
 */
int
path_match_bounded(size_t patlen, int deep, size_t pathlen, size_t ncomp)
{
	double steps = 2.0 * (double)(pathlen + 2) * (double)(patlen + 2);
	int k;

	for (k = 0; k < deep; k++)
		steps *= (double)(ncomp + 2);
	return steps < (double)GLOB_BUDGET;
}

/* ---- a bounded walk of a tree ---------------------------------------------- */

/* One directory still to read: its path, kept on the heap. */
struct walk_dir {
	char *path;
	size_t len;
};

static int
walk_push(struct walk_dir **q, size_t *n, size_t *cap, const char *path,
    size_t len)
{
	struct walk_dir *nq;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;

		if ((nq = realloc(*q, nc * sizeof(**q))) == NULL)
			return -1;
		*q = nq;
		*cap = nc;
	}
	if (((*q)[*n].path = malloc(len + 1)) == NULL)
		return -1;
	memcpy((*q)[*n].path, path, len + 1);
	(*q)[*n].len = len;
	(*n)++;
	return 0;
}

int
path_walk(const char *dir, int flags, long max,
    int (*fn)(void *arg, const char *path, unsigned mode), void *arg)
{
	struct walk_dir *q = NULL;
	size_t n = 0, cap = 0, k;
	long seen = 0;
	char path[SBX_PATH_MAX];
	int rc = 0;

	if (walk_push(&q, &n, &cap, dir, strlen(dir)) < 0)
		return PATH_WALK_ERR;
	/* depth first: the last directory pushed is read next */
	while (rc == 0 && n > 0) {
		struct walk_dir d = q[--n];
		struct dirent *de;
		DIR *dp;

		dp = opendir(d.path);
		if (dp == NULL) {
			/* what the agent cannot read, the command cannot
			 * either (the hook runs as the agent) */
			if (errno != EACCES && errno != ENOENT && errno != ENOTDIR)
				rc = PATH_WALK_ERR;
			free(d.path);
			continue;
		}
		while (rc == 0 && (de = readdir(dp)) != NULL) {
			const char *nm = de->d_name;
			unsigned mode = 0;
			struct stat st;
			int w;

			if (nm[0] == '.' && (nm[1] == '\0' ||
			    (nm[1] == '.' && nm[2] == '\0')))
				continue;
			if ((flags & PATH_WALK_NOHIDDEN) && nm[0] == '.')
				continue;
			if (++seen > max) {
				rc = PATH_WALK_BIG;
				break;
			}
			w = snprintf(path, sizeof(path), "%s%s%s", d.path,
			    d.len > 0 && d.path[d.len - 1] == '/' ? "" : "/", nm);
			if (w < 0 || (size_t)w >= sizeof(path)) {
				rc = PATH_WALK_ERR;
				break;
			}
			switch (de->d_type) {
			case DT_DIR: mode = S_IFDIR; break;
			case DT_REG: mode = S_IFREG; break;
			case DT_LNK: mode = S_IFLNK; break;
			default:
				if (lstat(path, &st) < 0) {
					if (errno != ENOENT)
						rc = PATH_WALK_ERR;
					continue;
				}
				mode = st.st_mode;
			}
			if ((rc = fn(arg, path, mode)) == PATH_WALK_PRUNE) {
				rc = 0;
				continue;
			}
			if (rc != 0)
				break;
			if (S_ISDIR(mode) && !(flags & PATH_WALK_FLAT) &&
			    walk_push(&q, &n, &cap, path,
			    (size_t)w) < 0)
				rc = PATH_WALK_ERR;
		}
		closedir(dp);
		free(d.path);
	}
	for (k = 0; k < n; k++)
		free(q[k].path);
	free(q);
	return rc;
}
