/*
 * test_policy_path.c - the shortcuts of policy/path.c that make one
 * evaluation fast must never change an answer:
 * - path_resolve_c() with a cache answers as path_resolve() without one,
 *   through real symlinks, missing parents and "..", and with a cache
 *   that is full (the oldest entries go);
 * - path_pattern_need(): every path a pattern matches holds the literal
 *   run it names (checked on random patterns and paths against
 *   path_match itself), and path_match_bounded() only vouches for sizes
 *   where path_match cannot run out of steps;
 * - policy_factors_text(), written without snprintf, cuts its text as
 *   snprintf did, at every buffer size.
 */
#include "policy/path.h"
#include "policy/policy.h"
#include "tests/tap.h"

#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char base[PATH_MAX];

static void
resolve_same(struct path_cache *pc, const char *cwd, const char *in)
{
	char a[SBX_PATH_MAX], b[SBX_PATH_MAX];
	int ra, rb;

	ra = path_resolve(cwd, "/nonexistent-sbx-home", in, a, sizeof(a));
	rb = path_resolve_c(pc, cwd, "/nonexistent-sbx-home", in, b,
	    sizeof(b));
	ok(ra == rb && (ra < 0 || strcmp(a, b) == 0),
	    "cached resolution of %s from %s: %d %s", in, cwd, rb,
	    rb == 0 ? b : "-");
}

static void
test_cache(void)
{
	static const char *const ins[] = {
		"link/x", "link/../y", "missing/../link/z", "dir/sub/f",
		"dir/../dir/./sub", "loop/a", "abs", "abs/passwd", "dir/uplink/dir",
		"/", ".", "..", "dir/missing/../../link", NULL,
	};
	char p[PATH_MAX + 64], cwd[PATH_MAX];
	struct path_cache pc;
	unsigned mode;
	int k, round, rc;

	snprintf(p, sizeof(p), "%s/dir", base);
	ok(mkdir(p, 0700) == 0, "mkdir dir");
	snprintf(p, sizeof(p), "%s/dir/sub", base);
	ok(mkdir(p, 0700) == 0, "mkdir dir/sub");
	snprintf(p, sizeof(p), "%s/link", base);
	ok(symlink("dir/sub", p) == 0, "symlink link");
	snprintf(p, sizeof(p), "%s/loop", base);
	ok(symlink("loop", p) == 0, "symlink loop");
	snprintf(p, sizeof(p), "%s/abs", base);
	ok(symlink("/etc", p) == 0, "symlink abs");
	snprintf(p, sizeof(p), "%s/dir/uplink", base);
	ok(symlink("..", p) == 0, "symlink uplink");
	snprintf(cwd, sizeof(cwd), "%s", base);

	path_cache_init(&pc);
	/* twice: the second round is answered from the cache */
	for (round = 0; round < 2; round++)
		for (k = 0; ins[k] != NULL; k++)
			resolve_same(&pc, cwd, ins[k]);
	ok(pc.n > 0, "the cache holds answers (%d)", pc.n);

	/* more paths than entries: the oldest go, answers stay right */
	for (k = 0; k < 3 * PATH_CACHE_N; k++) {
		char in[64];

		snprintf(in, sizeof(in), "dir/missing%d/../sub", k % 40);
		resolve_same(&pc, cwd, in);
	}
	ok(pc.n == PATH_CACHE_N, "a full cache stays at %d entries", pc.n);
	for (k = 0; ins[k] != NULL; k++)
		resolve_same(&pc, cwd, ins[k]);

	/* lstat through the cache: a link is a link, a missing path stays
	 * missing with its errno */
	snprintf(p, sizeof(p), "%s/link", base);
	rc = path_lstat(&pc, p, &mode);
	ok(rc == 0 && S_ISLNK(mode), "path_lstat sees the link");
	rc = path_lstat(&pc, p, &mode);
	ok(rc == 0 && S_ISLNK(mode), "... and again from the cache");
	snprintf(p, sizeof(p), "%s/nothing", base);
	errno = 0;
	rc = path_lstat(&pc, p, &mode);
	ok(rc < 0 && errno == ENOENT, "a missing path: ENOENT");
	errno = 0;
	rc = path_lstat(&pc, p, &mode);
	ok(rc < 0 && errno == ENOENT, "... and again from the cache");
	snprintf(p, sizeof(p), "%s/dir/sub/f/g", base);
	rc = path_lstat(NULL, p, &mode);
	ok(rc < 0 && errno == ENOENT, "no cache: plain lstat");

	/* a seed (the folder's and home's components, asked once a policy)
	 * answers first, and is never written by the call's cache */
	{
		struct path_cache seed, call;
		char q[PATH_MAX + 64];
		int nseed;

		path_cache_init(&seed);
		snprintf(q, sizeof(q), "%s/seeded", base);
		ok(mkdir(q, 0700) == 0, "mkdir seeded");
		ok(path_lstat(&seed, q, &mode) == 0 && S_ISDIR(mode),
		    "the seed learns a directory");
		nseed = seed.n;
		ok(rmdir(q) == 0, "rmdir seeded");
		path_cache_init(&call);
		call.seed = &seed;
		ok(path_lstat(&call, q, &mode) == 0 && S_ISDIR(mode),
		    "a call sees the seed's answer");
		snprintf(q, sizeof(q), "%s/dir", base);
		ok(path_lstat(&call, q, &mode) == 0 && call.n == 1 &&
		    seed.n == nseed, "what the seed does not hold goes to the "
		    "call's own cache");
		path_cache_init(&call);
		snprintf(q, sizeof(q), "%s/seeded", base);
		errno = 0;
		ok(path_lstat(&call, q, &mode) < 0 && errno == ENOENT,
		    "without the seed: the file system");
	}

	/* below a directory the cache knows is missing (or a file), the
	 * answer needs no lstat: nothing is added to the cache */
	{
		struct path_cache c;
		char q[PATH_MAX + 64];
		int n;

		path_cache_init(&c);
		snprintf(q, sizeof(q), "%s/gone", base);
		ok(path_lstat(&c, q, &mode) < 0 && errno == ENOENT,
		    "a missing directory");
		n = c.n;
		snprintf(q, sizeof(q), "%s/gone/a/b", base);
		errno = 0;
		ok(path_lstat(&c, q, &mode) < 0 && errno == ENOENT && c.n == n,
		    "below it: ENOENT from the cache");
		snprintf(q, sizeof(q), "%s/file", base);
		close(open(q, O_WRONLY | O_CREAT, 0600));
		ok(path_lstat(&c, q, &mode) == 0 && S_ISREG(mode), "a file");
		n = c.n;
		snprintf(q, sizeof(q), "%s/file/x", base);
		errno = 0;
		ok(path_lstat(&c, q, &mode) < 0 && errno == ENOTDIR && c.n == n,
		    "below a file: ENOTDIR from the cache");
		snprintf(q, sizeof(q), "%s/link/x", base);
		ok(path_lstat(&c, q, &mode) < 0 && errno == ENOENT,
		    "below a link: asked (dir/sub/x is missing)");
		snprintf(q, sizeof(q), "%s/dir/sub", base);
		ok(path_lstat(&c, q, &mode) == 0 && S_ISDIR(mode),
		    "below a directory: asked");
	}
}

static unsigned long rng = 12345;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)(rng >> 33) % n;
}

static void
random_pattern(char *out, size_t outsz)
{
	static const char *const parts[] = {
		"a", "b", "ab", "*", "?", "[ab]", "[!a]", "**", ".", "x", "[",
		"]", "*a", "b*", "a?b",
	};
	size_t o = 0;
	int k, n = 1 + (int)rnd(4);

	for (k = 0; k < n && o + 16 < outsz; k++) {
		int j, m = 1 + (int)rnd(3);

		out[o++] = '/';
		for (j = 0; j < m; j++) {
			const char *s = parts[rnd(sizeof(parts) /
			    sizeof(parts[0]))];

			if (strcmp(s, "**") == 0 && (j > 0 || m > 1))
				s = "*";
			o += (size_t)snprintf(out + o, outsz - o, "%s", s);
		}
	}
	out[o] = '\0';
}

static void
random_path(char *out, size_t outsz)
{
	static const char alpha[] = "ab.x[]";
	size_t o = 0;
	int k, n = 1 + (int)rnd(6);

	for (k = 0; k < n && o + 8 < outsz; k++) {
		int j, m = 1 + (int)rnd(4);

		out[o++] = '/';
		for (j = 0; j < m; j++)
			out[o++] = alpha[rnd(sizeof(alpha) - 1)];
	}
	out[o] = '\0';
}

static void
test_need(void)
{
	static const struct {
		const char *pat, *need;
		int deep;
	} fixed[] = {
		{ "/**/id_rsa*", "id_rsa", 1 },
		{ "/**/*.pem", ".pem", 1 },
		{ "/proc/*/task/*/environ", "environ", 0 },
		{ "/h/.ssh", ".ssh", 0 },
		{ "/**/a[bc]defg/**", "defg", 2 },
		{ "/**/[xyzxyzxyz]q", "q", 1 },
		{ "/**/*", "", 1 },
	};
	char pat[128], path[128];
	size_t off, n;
	int k, deep, matched = 0, bad = 0, checked = 0;

	for (k = 0; k < (int)(sizeof(fixed) / sizeof(fixed[0])); k++) {
		n = path_pattern_need(fixed[k].pat, &off, &deep);
		ok(n == strlen(fixed[k].need) &&
		    strncmp(fixed[k].pat + off, fixed[k].need, n) == 0 &&
		    deep == fixed[k].deep, "need of %s: %.*s, deep %d",
		    fixed[k].pat, (int)n, fixed[k].pat + off, deep);
	}
	/* every match holds the run: 200,000 random pairs */
	for (k = 0; k < 200000; k++) {
		random_pattern(pat, sizeof(pat));
		random_path(path, sizeof(path));
		if (path_match(pat, path) != 1)
			continue;
		matched++;
		n = path_pattern_need(pat, &off, &deep);
		if (n > 0 && memmem(path, strlen(path), pat + off, n) == NULL) {
			if (bad++ == 0)
				printf("# %s matches %s without %.*s\n", pat,
				    path, (int)n, pat + off);
		}
		checked++;
	}
	ok(matched > 1000, "random pairs that match: %d", matched);
	ok(bad == 0, "every match holds the literal run (%d checked)", checked);

	/* the bound */
	ok(path_match_bounded(20, 1, 100, 10), "a usual path is bounded");
	ok(!path_match_bounded(4000, 1, 4000, 2000),
	    "a 4 KiB pattern and path are not");
	ok(!path_match_bounded(20, 3, 100, 50), "three ** over 50 parts: not");
}

/* The text as the snprintf version wrote it, from the names in the
 * order the whole text lists them. */
static void
factors_ref(unsigned f, char *buf, size_t bufsz)
{
	char whole[1024], *name, *save = NULL;
	size_t o = 0;
	int n;

	policy_factors_text(f, whole, sizeof(whole));
	buf[0] = '\0';
	for (name = strtok_r(whole, ",", &save); name != NULL;
	    name = strtok_r(NULL, ",", &save)) {
		name += name[0] == ' ';
		n = snprintf(buf + o, bufsz - o, "%s%s", o ? ", " : "", name);
		if (n < 0 || (size_t)n >= bufsz - o)
			break;
		o += (size_t)n;
	}
}

static void
test_factors(void)
{
	static const unsigned sets[] = {
		0, POLICY_F_RUNS_CODE, POLICY_F_SECRET_READ | POLICY_F_NETWORK,
		0x3ff, POLICY_F_PRIVILEGE | POLICY_F_CATASTROPHIC,
	};
	char a[128], b[128];
	size_t k, sz;
	int bad = 0;

	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++)
		for (sz = 1; sz <= sizeof(a); sz++) {
			memset(a, 'x', sizeof(a));
			memset(b, 'x', sizeof(b));
			policy_factors_text(sets[k], a, sz);
			factors_ref(sets[k], b, sz);
			if (memcmp(a, b, sizeof(a)) != 0 && bad++ == 0)
				printf("# factors %#x in %zu bytes: \"%s\", "
				    "want \"%s\"\n", sets[k], sz, a, b);
		}
	ok(bad == 0, "factors text cut as snprintf cut it, at every size");
	{
		char whole[1024];

		policy_factors_text(0x3ff, whole, sizeof(whole));
		ok(strstr(whole, "runs project code") != NULL &&
		    strstr(whole, "catastrophic") != NULL, "all factors: %s",
		    whole);
	}
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-path-XXXXXX";
	char cmd[PATH_MAX + 32];

	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(base, sizeof(base), "%s", tmpl);
	test_cache();
	test_need();
	test_factors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpl);
	return tap_done();
}
