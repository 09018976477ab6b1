/*
 * opts.c - option values, in one place: which options of which program
 * take a value, and what that value is (a file written or read, a tree
 * written, code that runs). One scanner reads every form of a command's
 * options against this table: "-o FILE", "-oFILE", "-uoFILE" (a cluster),
 * "-o=FILE", "--output FILE", "--output=FILE", an unambiguous prefix
 * "--out=FILE" (getopt_long accepts it), and single-dash long options
 * ("-toolexec=x", "-fplugin=x.so").
 *
 * Rules:
 * - The table is data: an entry names a program, optionally the
 *   subcommand it applies to, the option, and the kind of its value. It
 *   MUST stay sorted by program name (checked at first use; if it is not,
 *   every command with options escalates: fail closed).
 * - A value that is not known exactly (a variable, a substitution) is
 *   judged like any such word: a write or a read through it escalates.
 * - Findings only add: handlers of the program's class still run.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ok_kind {
	OK_VAL,         /* takes a value that is harmless */
	OK_WRITE,       /* the value is a file written */
	OK_WTREE,       /* the value is a directory written or removed */
	OK_READ,        /* the value is a file read */
	OK_READ2,       /* two values: a name, then a file read (jq) */
	OK_CODE,        /* the value is code or a program that runs */
	OK_ESC,         /* the option alone does something a human decides */
	OK_INPROJ,      /* configuration that is code: only from the project */
};

struct optdef {
	const char *prog;
	const char *sub;        /* the subcommand it applies to, or NULL */
	const char *opt;        /* "-o", "--output", "-toolexec" */
	enum ok_kind kind;
};

/* Sorted by prog (strcmp). */
static const struct optdef opts[] = {
	{ "bat", NULL, "--pager", OK_CODE },
	{ "c++", NULL, "-B", OK_CODE },
	{ "c++", NULL, "-MF", OK_WRITE },
	{ "c++", NULL, "-Xclang", OK_CODE },
	{ "c++", NULL, "-fpass-plugin", OK_CODE },
	{ "c++", NULL, "-fplugin", OK_CODE },
	{ "c++", NULL, "-o", OK_WRITE },
	{ "c++", NULL, "-specs", OK_CODE },
	{ "c++", NULL, "--specs", OK_CODE },
	{ "c++", NULL, "-wrapper", OK_CODE },
	{ "cargo", NULL, "--artifact-dir", OK_WTREE },
	{ "cargo", NULL, "--config", OK_CODE },
	{ "cargo", NULL, "--out-dir", OK_WTREE },
	{ "cargo", NULL, "--target-dir", OK_WTREE },
	{ "cc", NULL, "-B", OK_CODE },
	{ "cc", NULL, "-MF", OK_WRITE },
	{ "cc", NULL, "-Xclang", OK_CODE },
	{ "cc", NULL, "-fpass-plugin", OK_CODE },
	{ "cc", NULL, "-fplugin", OK_CODE },
	{ "cc", NULL, "-o", OK_WRITE },
	{ "cc", NULL, "-specs", OK_CODE },
	{ "cc", NULL, "--specs", OK_CODE },
	{ "cc", NULL, "-wrapper", OK_CODE },
	{ "clang", NULL, "-B", OK_CODE },
	{ "clang", NULL, "-MF", OK_WRITE },
	{ "clang", NULL, "-Xclang", OK_CODE },
	{ "clang", NULL, "-fpass-plugin", OK_CODE },
	{ "clang", NULL, "-fplugin", OK_CODE },
	{ "clang", NULL, "-o", OK_WRITE },
	{ "clang", NULL, "-specs", OK_CODE },
	{ "clang", NULL, "--specs", OK_CODE },
	{ "clang", NULL, "-wrapper", OK_CODE },
	{ "clang-format", NULL, "--files", OK_READ },
	{ "curl", NULL, "--alt-svc", OK_WRITE },
	{ "curl", NULL, "--cert", OK_READ },
	{ "curl", NULL, "--config", OK_CODE },
	{ "curl", NULL, "--cookie-jar", OK_WRITE },
	{ "curl", NULL, "--dump-header", OK_WRITE },
	{ "curl", NULL, "--etag-save", OK_WRITE },
	{ "curl", NULL, "--hsts", OK_WRITE },
	{ "curl", NULL, "--key", OK_READ },
	{ "curl", NULL, "--libcurl", OK_WRITE },
	{ "curl", NULL, "--netrc-file", OK_READ },
	{ "curl", NULL, "--output-dir", OK_WTREE },
	{ "curl", NULL, "--stderr", OK_WRITE },
	{ "curl", NULL, "--trace", OK_WRITE },
	{ "curl", NULL, "--trace-ascii", OK_WRITE },
	{ "curl", NULL, "-D", OK_WRITE },
	{ "curl", NULL, "-K", OK_CODE },
	{ "curl", NULL, "-c", OK_WRITE },
	{ "diff", NULL, "--exclude-from", OK_READ },
	{ "diff", NULL, "--from-file", OK_READ },
	{ "diff", NULL, "--to-file", OK_READ },
	{ "diff", NULL, "-X", OK_READ },
	{ "eslint", NULL, "--output-file", OK_WRITE },
	{ "eslint", NULL, "--resolve-plugins-relative-to", OK_CODE },
	{ "eslint", NULL, "--rulesdir", OK_CODE },
	{ "eslint", NULL, "-o", OK_WRITE },
	{ "eslint", NULL, "--config", OK_INPROJ },
	{ "eslint", NULL, "-c", OK_INPROJ },
	{ "file", NULL, "--files-from", OK_READ },
	{ "file", NULL, "--magic-file", OK_READ },
	{ "file", NULL, "-f", OK_READ },
	{ "file", NULL, "-m", OK_READ },
	{ "g++", NULL, "-B", OK_CODE },
	{ "g++", NULL, "-MF", OK_WRITE },
	{ "g++", NULL, "-Xclang", OK_CODE },
	{ "g++", NULL, "-fpass-plugin", OK_CODE },
	{ "g++", NULL, "-fplugin", OK_CODE },
	{ "g++", NULL, "-o", OK_WRITE },
	{ "g++", NULL, "-specs", OK_CODE },
	{ "g++", NULL, "--specs", OK_CODE },
	{ "g++", NULL, "-wrapper", OK_CODE },
	{ "gcc", NULL, "-B", OK_CODE },
	{ "gcc", NULL, "-MF", OK_WRITE },
	{ "gcc", NULL, "-Xclang", OK_CODE },
	{ "gcc", NULL, "-fpass-plugin", OK_CODE },
	{ "gcc", NULL, "-fplugin", OK_CODE },
	{ "gcc", NULL, "-o", OK_WRITE },
	{ "gcc", NULL, "-specs", OK_CODE },
	{ "gcc", NULL, "--specs", OK_CODE },
	{ "gcc", NULL, "-wrapper", OK_CODE },
	{ "git", "blame", "--contents", OK_READ },
	{ "git", "commit", "--file", OK_READ },
	{ "git", "commit", "--template", OK_READ },
	{ "git", "commit", "-F", OK_READ },
	{ "git", "commit", "-t", OK_READ },
	{ "git", "diff", "--ext-diff", OK_ESC },
	{ "git", "diff", "--output", OK_WRITE },
	{ "git", "format-patch", "--output-directory", OK_WTREE },
	{ "git", "format-patch", "-o", OK_WTREE },
	{ "git", "grep", "--open-files-in-pager", OK_CODE },
	{ "git", "grep", "-O", OK_CODE },
	{ "git", "init", "--separate-git-dir", OK_CODE },
	{ "git", "init", "--template", OK_CODE },
	{ "git", "log", "--ext-diff", OK_ESC },
	{ "git", "log", "--output", OK_WRITE },
	{ "git", "merge", "--file", OK_READ },
	{ "git", "merge", "-F", OK_READ },
	{ "git", "notes", "--file", OK_READ },
	{ "git", "notes", "-F", OK_READ },
	{ "git", "rebase", "--exec", OK_CODE },
	{ "git", "rebase", "-x", OK_CODE },
	{ "git", "show", "--ext-diff", OK_ESC },
	{ "git", "show", "--output", OK_WRITE },
	{ "git", "tag", "--file", OK_READ },
	{ "git", "tag", "-F", OK_READ },
	{ "go", NULL, "-exec", OK_CODE },
	{ "go", NULL, "-modfile", OK_READ },
	{ "go", NULL, "-o", OK_WRITE },
	{ "go", NULL, "-overlay", OK_READ },
	{ "go", NULL, "-pkgdir", OK_WTREE },
	{ "go", NULL, "-toolexec", OK_CODE },
	{ "go", "env", "-u", OK_ESC },
	{ "go", "env", "-w", OK_ESC },
	{ "go", NULL, "-vettool", OK_CODE },
	{ "gradle", NULL, "--gradle-user-home", OK_WTREE },
	{ "gradle", NULL, "--init-script", OK_CODE },
	{ "gradle", NULL, "-I", OK_CODE },
	{ "gradle", NULL, "-g", OK_WTREE },
	{ "gradle", NULL, "--build-file", OK_INPROJ },
	{ "gradle", NULL, "--settings-file", OK_INPROJ },
	{ "gradle", NULL, "-b", OK_INPROJ },
	{ "grep", NULL, "--exclude-from", OK_READ },
	{ "jest", NULL, "--config", OK_INPROJ },
	{ "jest", NULL, "-c", OK_INPROJ },
	{ "jq", NULL, "--from-file", OK_READ },
	{ "jq", NULL, "--rawfile", OK_READ2 },
	{ "jq", NULL, "--slurpfile", OK_READ2 },
	{ "jq", NULL, "-f", OK_READ },
	{ "less", NULL, "--LOG-FILE", OK_WRITE },
	{ "less", NULL, "--lesskey-content", OK_CODE },
	{ "less", NULL, "--lesskey-file", OK_CODE },
	{ "less", NULL, "--lesskey-src", OK_CODE },
	{ "less", NULL, "--log-file", OK_WRITE },
	{ "less", NULL, "-O", OK_WRITE },
	{ "less", NULL, "-k", OK_CODE },
	{ "less", NULL, "-o", OK_WRITE },
	{ "make", NULL, "--eval", OK_CODE },
	{ "make", NULL, "-E", OK_CODE },
	{ "man", NULL, "--browser", OK_CODE },
	{ "man", NULL, "--config-file", OK_CODE },
	{ "man", NULL, "--html", OK_CODE },
	{ "man", NULL, "--local-file", OK_READ },
	{ "man", NULL, "--pager", OK_CODE },
	{ "man", NULL, "-C", OK_CODE },
	{ "man", NULL, "-H", OK_CODE },
	{ "man", NULL, "-P", OK_CODE },
	{ "man", NULL, "-l", OK_READ },
	{ "mvn", NULL, "--global-settings", OK_READ },
	{ "mvn", NULL, "--settings", OK_READ },
	{ "mvn", NULL, "--toolchains", OK_READ },
	{ "mvn", NULL, "-gs", OK_READ },
	{ "mvn", NULL, "-s", OK_READ },
	{ "mvn", NULL, "-t", OK_READ },
	{ "mvn", NULL, "--file", OK_INPROJ },
	{ "mvn", NULL, "-f", OK_INPROJ },
	{ "mypy", NULL, "--config-file", OK_INPROJ },
	{ "node", NULL, "--cpu-prof-dir", OK_WTREE },
	{ "node", NULL, "--diagnostic-dir", OK_WTREE },
	{ "node", NULL, "--env-file", OK_READ },
	{ "node", NULL, "--env-file-if-exists", OK_READ },
	{ "node", NULL, "--experimental-loader", OK_CODE },
	{ "node", NULL, "--heap-prof-dir", OK_WTREE },
	{ "node", NULL, "--loader", OK_CODE },
	{ "node", NULL, "--openssl-config", OK_CODE },
	{ "node", NULL, "--redirect-warnings", OK_WRITE },
	{ "node", NULL, "--report-directory", OK_WTREE },
	{ "node", NULL, "--test-reporter-destination", OK_WRITE },
	{ "nodejs", NULL, "--env-file", OK_READ },
	{ "nodejs", NULL, "--experimental-loader", OK_CODE },
	{ "nodejs", NULL, "--loader", OK_CODE },
	{ "npm", NULL, "--globalconfig", OK_CODE },
	{ "npm", NULL, "--node-options", OK_CODE },
	{ "npm", NULL, "--script-shell", OK_CODE },
	{ "npm", NULL, "--userconfig", OK_CODE },
	{ "prettier", NULL, "--plugin", OK_CODE },
	{ "prettier", NULL, "--config", OK_INPROJ },
	{ "py.test", NULL, "--basetemp", OK_WTREE },
	{ "py.test", NULL, "--junit-xml", OK_WRITE },
	{ "py.test", NULL, "--junitxml", OK_WRITE },
	{ "py.test", NULL, "--log-file", OK_WRITE },
	{ "py.test", NULL, "--config-file", OK_INPROJ },
	{ "py.test", NULL, "-c", OK_INPROJ },
	{ "pytest", NULL, "--basetemp", OK_WTREE },
	{ "pytest", NULL, "--junit-xml", OK_WRITE },
	{ "pytest", NULL, "--junitxml", OK_WRITE },
	{ "pytest", NULL, "--log-file", OK_WRITE },
	{ "pytest", NULL, "--report-log", OK_WRITE },
	{ "pytest", NULL, "--result-log", OK_WRITE },
	{ "pytest", NULL, "--resultlog", OK_WRITE },
	{ "pytest", NULL, "--config-file", OK_INPROJ },
	{ "pytest", NULL, "-c", OK_INPROJ },
	{ "rg", NULL, "--ignore-file", OK_READ },
	{ "rg", NULL, "--pre", OK_CODE },
	{ "rsync", NULL, "--rsh", OK_CODE },
	{ "rsync", NULL, "--rsync-path", OK_CODE },
	{ "rsync", NULL, "-e", OK_CODE },
	{ "ruff", NULL, "--cache-dir", OK_WTREE },
	{ "ruff", NULL, "--output-file", OK_WRITE },
	{ "ruff", NULL, "-o", OK_WRITE },
	{ "sort", NULL, "--compress-program", OK_CODE },
	{ "sort", NULL, "--files0-from", OK_READ },
	{ "sort", NULL, "--output", OK_WRITE },
	{ "sort", NULL, "-o", OK_WRITE },
	{ "sort", NULL, "--temporary-directory", OK_WTREE },
	{ "sort", NULL, "-T", OK_WTREE },
	{ "tar", NULL, "--checkpoint-action", OK_CODE },
	{ "tar", NULL, "--exclude-from", OK_READ },
	{ "tar", NULL, "--files-from", OK_READ },
	{ "tar", NULL, "--index-file", OK_WRITE },
	{ "tar", NULL, "--info-script", OK_CODE },
	{ "tar", NULL, "--listed-incremental", OK_WRITE },
	{ "tar", NULL, "--new-volume-script", OK_CODE },
	{ "tar", NULL, "--rmt-command", OK_CODE },
	{ "tar", NULL, "--rsh-command", OK_CODE },
	{ "tar", NULL, "--to-command", OK_CODE },
	{ "tar", NULL, "--use-compress-program", OK_CODE },
	{ "tar", NULL, "-F", OK_CODE },
	{ "tar", NULL, "-I", OK_CODE },
	{ "tar", NULL, "-T", OK_READ },
	{ "tar", NULL, "-X", OK_READ },
	{ "tar", NULL, "-g", OK_WRITE },
	{ "time", NULL, "--output", OK_WRITE },
	{ "time", NULL, "-o", OK_WRITE },
	{ "tsc", NULL, "--declarationDir", OK_WTREE },
	{ "tsc", NULL, "--generateTrace", OK_WTREE },
	{ "tsc", NULL, "--outDir", OK_WTREE },
	{ "tsc", NULL, "--outFile", OK_WRITE },
	{ "tsc", NULL, "--tsBuildInfoFile", OK_WRITE },
	{ "tsc", NULL, "-declarationDir", OK_WTREE },
	{ "tsc", NULL, "-outDir", OK_WTREE },
	{ "tsc", NULL, "-outFile", OK_WRITE },
	{ "vitest", NULL, "--config", OK_INPROJ },
	{ "vitest", NULL, "-c", OK_INPROJ },
	{ "wget", NULL, "--append-output", OK_WRITE },
	{ "wget", NULL, "--body-file", OK_READ },
	{ "wget", NULL, "--certificate", OK_READ },
	{ "wget", NULL, "--config", OK_CODE },
	{ "wget", NULL, "--directory-prefix", OK_WTREE },
	{ "wget", NULL, "--execute", OK_CODE },
	{ "wget", NULL, "--hsts-file", OK_WRITE },
	{ "wget", NULL, "--input-file", OK_READ },
	{ "wget", NULL, "--load-cookies", OK_READ },
	{ "wget", NULL, "--output-file", OK_WRITE },
	{ "wget", NULL, "--post-file", OK_READ },
	{ "wget", NULL, "--private-key", OK_READ },
	{ "wget", NULL, "--rejected-log", OK_WRITE },
	{ "wget", NULL, "--save-cookies", OK_WRITE },
	{ "wget", NULL, "--use-askpass", OK_CODE },
	{ "wget", NULL, "--warc-file", OK_WRITE },
	{ "wget", NULL, "-P", OK_WTREE },
	{ "wget", NULL, "-a", OK_WRITE },
	{ "wget", NULL, "-e", OK_CODE },
	{ "wget", NULL, "-i", OK_READ },
	{ "wget", NULL, "-o", OK_WRITE },
	{ "zip", NULL, "--unzip-command", OK_CODE },
	{ "zip", NULL, "-TT", OK_CODE },
};

#define NOPTS ((int)(sizeof(opts) / sizeof(opts[0])))

static int
opts_sorted(void)
{
	static int state;       /* 0 unknown, 1 sorted, -1 not */
	int k;

	if (state == 0) {
		state = 1;
		for (k = 1; k < NOPTS; k++)
			if (strcmp(opts[k - 1].prog, opts[k].prog) > 0)
				state = -1;
	}
	return state > 0;
}

/* The first entry for prog, or -1. */
static int
first_of(const char *prog)
{
	int lo = 0, hi = NOPTS, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (strcmp(opts[mid].prog, prog) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < NOPTS && strcmp(opts[lo].prog, prog) == 0 ? lo : -1;
}

/*
 * The subcommand: the first operand, skipping the values of options that
 * take one (short letters in optarg, and table entries).
 */
static const char *
subcommand(const struct cmdv *v, const struct prog *pr)
{
	int k;
	const char *s;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]))
			return NULL;
		if (strcmp(s, "--") == 0)
			return k + 1 < v->n && an_lit(&v->w[k + 1]) ?
			    v->w[k + 1].s : NULL;
		if (s[0] != '-' || s[1] == '\0')
			return s;
		if (an_cluster_takes_next(s, pr->optarg))
			k++;
	}
	return NULL;
}

/* 0 for programs whose short options do not cluster. */
static int
clusters(const char *prog)
{
	static const char *const no[] = {
		"c++", "cc", "clang", "g++", "gcc", "go", "node", "nodejs", "tsc",
		NULL,
	};
	int k;

	for (k = 0; no[k] != NULL; k++)
		if (strcmp(prog, no[k]) == 0)
			return 0;
	return 1;
}

/* A word for an attached value: the tail of w from off. */
static struct sh_word
tail_word(const struct sh_word *w, size_t off)
{
	struct sh_word t = *w;

	t.s = w->s + off;
	t.len = w->len - off;
	t.flags &= ~(unsigned)SH_W_TILDE;
	if (t.s[0] == '~')
		t.flags |= SH_W_TILDE;
	return t;
}

static void
apply(struct ev *ev, struct cmdv *v, const struct optdef *d,
    struct sh_word *val, struct sh_word *val2, const char *shown)
{
	const char *what = v->w[0].s;

	switch (d->kind) {
	case OK_VAL:
		break;
	case OK_ESC:
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs an external program or changes the user's "
		    "configuration", what, shown);
		break;
	case OK_INPROJ:
		{
			char path[SBX_PATH_MAX], res[SBX_PATH_MAX];

			if (val != NULL && an_word_path(ev, val, path,
			    sizeof(path)) == 1 && (path[0] == '/' ||
			    path[0] == '~' || ev->cwd_known) &&
			    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res,
			    sizeof(res)) == 0 && ev->p->folder != NULL &&
			    path_within(res, ev->p->folder))
				break;
		}
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs configuration from outside the project", what,
		    shown);
		break;
	case OK_CODE:
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs a command or code the policy cannot read", what,
		    shown);
		break;
	case OK_WRITE:
	case OK_WTREE:
		if (val == NULL) {
			trig_write(ev, NULL, what);
			break;
		}
		if (d->kind == OK_WTREE)
			an_write_tree_word(ev, v, val);
		else
			an_write_word(ev, v, val);
		/* -o=FILE: getopt reads "=FILE", Go's flags read "FILE" */
		if (val->s[0] == '=' && val->s[1] != '\0') {
			struct sh_word t = tail_word(val, 1);

			an_write_word(ev, v, &t);
		}
		break;
	case OK_READ:
	case OK_READ2:
		if (d->kind == OK_READ2)
			val = val2;
		if (val == NULL) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "read", "builtin: option",
			    "%s %s reads a file the policy cannot see", what, shown);
			break;
		}
		an_op_read(ev, v, val, 0);
		if (val->s[0] == '=' && val->s[1] != '\0') {
			struct sh_word t = tail_word(val, 1);

			an_op_read(ev, v, &t, 0);
		}
		break;
	}
}

/*
 * Judges the option values of v against the table for prog. sub: the
 * subcommand, for entries that name one.
 */
void
an_opts_scan(struct ev *ev, struct cmdv *v, const struct prog *pr,
    const char *prog)
{
	int first, k, j;
	const char *s, *sub, *q;
	size_t n;

	if (!opts_sorted()) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option table",
		    "the option table is not sorted: every option escalates");
		return;
	}
	if ((first = first_of(prog)) < 0)
		return;
	sub = subcommand(v, pr);
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		s = w->s;
		if (an_lit(w) && strcmp(s, "--") == 0)
			return;
		if (s[0] != '-' || s[1] == '\0')
			continue;
		if (s[1] == '-' || strlen(s) > 2) {
			/* --name[=value], a prefix of --name, or -name[=value] */
			const char *eq = strchr(s, '=');
			size_t nl = eq != NULL ? (size_t)(eq - s) : strlen(s);
			int hit = 0;

			for (j = first; j < NOPTS && strcmp(opts[j].prog, prog) == 0;
			    j++) {
				const struct optdef *d = &opts[j];
				size_t dl = strlen(d->opt);
				struct sh_word t, *val = NULL, *val2 = NULL;

				if (d->sub != NULL && (sub == NULL ||
				    strcmp(d->sub, sub) != 0))
					continue;
				if (d->opt[1] == '-') {
					/* long: the word's name is a prefix of it */
					if (s[1] != '-' || nl < 3 || nl > dl ||
					    strncmp(s, d->opt, nl) != 0)
						continue;
					if (eq != NULL) {
						t = tail_word(w, nl + 1);
						val = &t;
					} else if (d->kind != OK_ESC && k + 1 < v->n) {
						val = &v->w[k + 1];
						if (d->kind == OK_READ2 && k + 2 < v->n)
							val2 = &v->w[k + 2];
					}
				} else if (dl > 2) {
					/* single-dash long: -toolexec=x, -fplugin=x */
					if (strncmp(s, d->opt, dl) != 0)
						continue;
					if (s[dl] == '=') {
						t = tail_word(w, dl + 1);
						val = &t;
					} else if (s[dl] == '\0') {
						if (d->kind != OK_ESC && k + 1 < v->n)
							val = &v->w[k + 1];
					} else {
						t = tail_word(w, dl);
						val = &t;
					}
				} else {
					continue;       /* short: below */
				}
				hit = 1;
				apply(ev, v, d, val, val2, s);
			}
			if (hit || s[1] == '-')
				continue;
		}
		/* a short cluster: -abc, -oFILE, -uoFILE (compilers and Go's
		 * flags do not cluster: -Wno-x is one option) */
		for (q = s + 1; *q != '\0' && (q == s + 1 || clusters(prog));
		    q++) {
			int takes = strchr(pr->optarg, *q) != NULL;

			for (j = first; j < NOPTS && strcmp(opts[j].prog, prog) == 0;
			    j++) {
				const struct optdef *d = &opts[j];
				struct sh_word t, *val = NULL;
				char shown[3] = { '-', *q, '\0' };

				if (strlen(d->opt) != 2 || d->opt[1] != *q ||
				    (d->sub != NULL && (sub == NULL ||
				    strcmp(d->sub, sub) != 0)))
					continue;
				if (d->kind == OK_ESC) {
					apply(ev, v, d, NULL, NULL, shown);
					continue;
				}
				takes = 1;
				if (q[1] != '\0') {
					n = (size_t)(q + 1 - s);
					t = tail_word(w, n);
					val = &t;
				} else if (k + 1 < v->n) {
					val = &v->w[k + 1];
				}
				apply(ev, v, d, val, NULL, shown);
			}
			if (takes) {
				if (q[1] == '\0')
					k++;
				break;
			}
		}
	}
}
