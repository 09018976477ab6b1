/*
 * policy_bench.c - how fast the policy engine classifies shell commands.
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags libcjson) \
 *       tests/bench/policy_bench.c $(ls policy/[a-z]*.c) -lcjson \
 *       -o build/policy_bench
 *   build/policy_bench [CORPUS_DIR] [SECONDS] [-t]
 *
 * 1. Throughput: every line of dangerous.txt and safe.txt (the curated
 *    corpus) through policy_eval() with the built-in defaults, again and
 *    again for SECONDS (default 3) on one core: commands per second.
 * 2. Linearity: hostile commands of 64 KiB, 256 KiB and 1 MiB (deep
 *    nesting, unclosed quotes, long pipelines, many words): the time for
 *    one verdict each. Linear time means 4x the size costs about 4x.
 * -t runs part 1 only (to profile it alone).
 * Figures are printed; docs/POLICY.md records them.
 */
#include "policy/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this process: on a shared machine, wall time also counts
 * the time other processes had the core. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct policy *pol;
static const char *folder = "/nonexistent-sbx-bench/project";

static enum policy_verdict
judge(const char *cmd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = folder;
	c.folder = folder;
	c.home = "/nonexistent-sbx-bench/home";
	c.config_dir = "/nonexistent-sbx-bench/home/.config/sbx";
	policy_eval(pol, &c, &r);
	cJSON_Delete(in);
	return r.verdict;
}

static char **
read_lines(const char *dir, const char *name, char **v, size_t *n)
{
	char path[4096], line[65536];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "policy_bench: %s: cannot open\n", path);
		exit(1);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = strdup(line);
	}
	fclose(f);
	return v;
}

static char *
repeat(const char *pre, const char *mid, const char *post, size_t size)
{
	size_t pl = strlen(pre), sl = strlen(post), ml = strlen(mid);
	size_t n = (size - ml) / (pl + sl), k;
	char *s = malloc(size + 16), *o = s;

	for (k = 0; k < n; k++, o += pl)
		memcpy(o, pre, pl);
	memcpy(o, mid, ml);
	o += ml;
	for (k = 0; k < n; k++, o += sl)
		memcpy(o, post, sl);
	*o = '\0';
	return s;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/corpus";
	double secs = argc > 2 ? atof(argv[2]) : 3.0, t0, t, c0;
	struct policy_error err;
	char **lines = NULL;
	size_t n = 0, k, total = 0;
	static const struct {
		const char *name, *pre, *mid, *post;
	} hostile[] = {
		{ "nested $( )", "$(", "ls", ")" },
		{ "nested ( )", "(", "ls", ")" },
		{ "unclosed quote", "'", "", "a" },
		{ "pipeline a |", "a | ", "a", "" },
		{ "words", "a ", "ls", "" },
		{ "list a;", "a;", "a", "" },
		{ "long word", "", "", "a" },
		{ "here-doc body", "", "cat > notes.md <<'EOF'\n", "some text\n" },
		{ "quoted string", "", "echo \"", "$x " },
		{ "ANSI-C string", "", "echo $'", "\\x41" },
	};
	static const size_t sizes[] = { 64 << 10, 256 << 10, 1 << 20 };

	pol = policy_load_buffer("defaults", policy_default_text(),
	    strlen(policy_default_text()), folder, NULL, &err);
	if (pol == NULL) {
		fprintf(stderr, "policy_bench: %s\n", err.msg);
		return 1;
	}
	lines = read_lines(dir, "dangerous.txt", lines, &n);
	lines = read_lines(dir, "safe.txt", lines, &n);
	t0 = now();
	c0 = cpu_now();
	do {
		for (k = 0; k < n; k++)
			(void)judge(lines[k]);
		total += n;
		t = now() - t0;
	} while (t < secs);
	c0 = cpu_now() - c0;
	printf("throughput: %zu commands (%zu corpus lines) in %.2f s: "
	    "%.0f commands/s on one core (%.0f per CPU second)\n", total, n, t,
	    (double)total / t, (double)total / c0);
	if (argc > 3 && strcmp(argv[3], "-t") == 0)
		goto out;	/* throughput only (for a profiler) */
	printf("\n%-16s %12s %12s %12s\n", "hostile input", "64 KiB", "256 KiB",
	    "1 MiB");
	for (k = 0; k < sizeof(hostile) / sizeof(hostile[0]); k++) {
		size_t j;

		printf("%-16s", hostile[k].name);
		for (j = 0; j < 3; j++) {
			char *s = repeat(hostile[k].pre, hostile[k].mid,
			    hostile[k].post, sizes[j] - 8);
			int reps = 0;
			enum policy_verdict v = POLICY_ALLOW;

			/* close what the complete cases open */
			if (strstr(hostile[k].mid, "<<'EOF'") != NULL)
				strcat(s, "EOF\n");
			else if (strcmp(hostile[k].mid, "echo \"") == 0)
				strcat(s, "\"");
			else if (strcmp(hostile[k].mid, "echo $'") == 0)
				strcat(s, "'");

			t0 = now();
			do {
				v = judge(s);
				reps++;
			} while (now() - t0 < 0.2);
			t = (now() - t0) / reps;
			printf(" %8.2f ms %s", t * 1e3, v == POLICY_ALLOW ? "A" :
			    v == POLICY_ESCALATE ? "E" : "D");
			free(s);
		}
		printf("\n");
	}
out:
	for (k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	policy_free(pol);
	return 0;
}
