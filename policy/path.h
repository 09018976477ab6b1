/*
 * path.h - resolves paths like the kernel would, and matches them against
 * the glob patterns of policy rules.
 *
 * Rules:
 * - path_resolve() MUST follow every symlink it meets, including those in
 *   the parents of a file that does not exist yet, and apply ".." to the
 *   real parent, as open(2) would. Its only I/O is lstat and readlink
 *   (path_walk, for tree walkers, also reads directories).
 * - Results are written into caller buffers of PATH_MAX bytes; any
 *   overflow, loop (more than 40 links) or unknown "~user" is an error
 *   (-1), which callers treat as "cannot tell": escalate.
 */
#ifndef SBX_PATH_H
#define SBX_PATH_H

#include <stddef.h>

#define SBX_PATH_MAX 4096

/*
 * What lstat said about a few paths, for one evaluation: a line names the
 * same directories again and again (its cwd, the home), and the file
 * system is taken as it is when the call is judged. Paths longer than
 * PATH_CACHE_LEN - 1 and answers other than "there (mode)" or "missing"
 * are not kept; when full, the oldest entry goes.
 */
#define PATH_CACHE_N   32
#define PATH_CACHE_LEN 256
struct path_cache {
	const struct path_cache *seed;  /* asked first, never changed */
	int n, next;
	struct path_cached {
		size_t len;
		int err;                /* 0, ENOENT or ENOTDIR */
		unsigned mode;          /* st_mode when err is 0 */
		char path[PATH_CACHE_LEN];
	} e[PATH_CACHE_N];
};

void path_cache_init(struct path_cache *pc);

/* lstat through pc (may be NULL): 0 and *mode, or -1 with errno set. */
int path_lstat(struct path_cache *pc, const char *path, unsigned *mode);

/*
 * Resolves in (relative to cwd, "~" and "~/" against home) into out.
 * Returns 0, or -1 when the path cannot be resolved with certainty.
 */
int path_resolve(const char *cwd, const char *home, const char *in,
    char *out, size_t outsz);
/* The same, asking lstat through pc (may be NULL). */
int path_resolve_c(struct path_cache *pc, const char *cwd, const char *home,
    const char *in, char *out, size_t outsz);

/* Lexical normalisation of an absolute path ("//", ".", ".."). */
int path_normalize(const char *in, char *out, size_t outsz);

/* 1 if path equals dir or lies below it (both absolute, normalised). */
int path_within(const char *path, const char *dir);

/*
 * Glob match of an absolute path: "*" and "?" and "[...]" within one
 * component, "**" as a whole component for any number of components.
 * A pattern also matches everything below what it matches (a directory
 * rule covers its contents). Returns 1 match, 0 no match, -1 when the
 * step budget ran out: callers MUST then fail closed (a deny list
 * matches, an allow list does not).
 */
int path_match(const char *pattern, const char *path);

/*
 * For a quick "no" before path_match: the longest run of literal
 * characters inside one component of pattern (at *off, length returned;
 * 0: none). Every path the pattern matches holds that run. *deep counts
 * the "**" components.
 */
size_t path_pattern_need(const char *pattern, size_t *off, int *deep);

/*
 * 1 if path_match(pattern, path) cannot run out of its step budget: a
 * path without the pattern's literal run is then surely not matched
 * (without the bound, an exhausted budget counts as a match for a deny
 * list, and the quick "no" must not change that).
 */
int path_match_bounded(size_t patlen, int deep, size_t pathlen,
    size_t ncomp);

/*
 * Walks the tree below dir (dir itself is not given) without following
 * symlinks, calling fn(arg, path, lstat mode) for every entry; stops at
 * fn's first non-zero answer and returns it, but PATH_WALK_PRUNE, which
 * only says not to enter that directory. PATH_WALK_NOHIDDEN skips
 * (and does not enter) entries whose name starts with "."; PATH_WALK_FLAT
 * gives the entries of dir only. Returns
 * PATH_WALK_BIG past max entries and PATH_WALK_ERR when a directory
 * cannot be read for another reason than EACCES, a path is too long or
 * memory runs out: callers MUST then fail closed. Directories the caller
 * cannot read are passed over (a command run as the same user cannot
 * read them either). Besides lstat and readlink, this is the only I/O of
 * the policy engine (opendir, readdir), for tree walkers (grep -r).
 */
#define PATH_WALK_NOHIDDEN 1
#define PATH_WALK_FLAT  2       /* the entries of dir only */
#define PATH_WALK_PRUNE 4       /* from fn: do not enter this directory */
#define PATH_WALK_BIG   (-2)
#define PATH_WALK_ERR   (-3)
int path_walk(const char *dir, int flags, long max,
    int (*fn)(void *arg, const char *path, unsigned mode), void *arg);

#endif
