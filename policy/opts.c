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
 * - The tables are data: a program's entry in progs[] (progs.c) names its
 *   option set here (enum an_opts); an entry of a set names optionally
 *   the subcommand it applies to, the option, and the kind of its value.
 *   A family of programs (cc, gcc, clang, c++, g++) shares one set.
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
	const char *sub;        /* the subcommand it applies to, or NULL */
	const char *opt;        /* "-o", "--output", "-toolexec"; NULL ends */
	enum ok_kind kind;
};

/* The options of one program (or of a family: cc, gcc, clang...), in the
 * order they are judged. */
struct optset {
	int cluster;            /* short options cluster: -abc, -oFILE */
	const struct optdef *d;
};

static const struct optdef o_bat[] = {
	{ NULL, "--pager", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_cargo[] = {
	{ NULL, "--artifact-dir", OK_WTREE },
	{ NULL, "--config", OK_CODE },
	{ NULL, "--out-dir", OK_WTREE },
	{ NULL, "--target-dir", OK_WTREE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_cc[] = {
	{ NULL, "-B", OK_CODE },
	{ NULL, "-MF", OK_WRITE },
	{ NULL, "-Xclang", OK_CODE },
	{ NULL, "-fpass-plugin", OK_CODE },
	{ NULL, "-fplugin", OK_CODE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, "-specs", OK_CODE },
	{ NULL, "--specs", OK_CODE },
	{ NULL, "-wrapper", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_clang_format[] = {
	{ NULL, "--files", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_curl[] = {
	{ NULL, "--alt-svc", OK_WRITE },
	{ NULL, "--cert", OK_READ },
	{ NULL, "--config", OK_CODE },
	{ NULL, "--cookie-jar", OK_WRITE },
	{ NULL, "--dump-header", OK_WRITE },
	{ NULL, "--etag-save", OK_WRITE },
	{ NULL, "--hsts", OK_WRITE },
	{ NULL, "--key", OK_READ },
	{ NULL, "--libcurl", OK_WRITE },
	{ NULL, "--netrc-file", OK_READ },
	{ NULL, "--output-dir", OK_WTREE },
	{ NULL, "--stderr", OK_WRITE },
	{ NULL, "--trace", OK_WRITE },
	{ NULL, "--trace-ascii", OK_WRITE },
	{ NULL, "-D", OK_WRITE },
	{ NULL, "-K", OK_CODE },
	{ NULL, "-c", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_diff[] = {
	{ NULL, "--exclude-from", OK_READ },
	{ NULL, "--from-file", OK_READ },
	{ NULL, "--to-file", OK_READ },
	{ NULL, "-X", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_eslint[] = {
	{ NULL, "--output-file", OK_WRITE },
	{ NULL, "--resolve-plugins-relative-to", OK_CODE },
	{ NULL, "--rulesdir", OK_CODE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, "--config", OK_INPROJ },
	{ NULL, "-c", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_file[] = {
	{ NULL, "--files-from", OK_READ },
	{ NULL, "--magic-file", OK_READ },
	{ NULL, "-f", OK_READ },
	{ NULL, "-m", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_git[] = {
	{ "blame", "--contents", OK_READ },
	{ "commit", "--file", OK_READ },
	{ "commit", "--template", OK_READ },
	{ "commit", "-F", OK_READ },
	{ "commit", "-t", OK_READ },
	{ "diff", "--ext-diff", OK_ESC },
	{ "diff", "--output", OK_WRITE },
	{ "format-patch", "--output-directory", OK_WTREE },
	{ "format-patch", "-o", OK_WTREE },
	{ "grep", "--open-files-in-pager", OK_CODE },
	{ "grep", "-O", OK_CODE },
	{ "init", "--separate-git-dir", OK_CODE },
	{ "init", "--template", OK_CODE },
	{ "log", "--ext-diff", OK_ESC },
	{ "log", "--output", OK_WRITE },
	{ "merge", "--file", OK_READ },
	{ "merge", "-F", OK_READ },
	{ "notes", "--file", OK_READ },
	{ "notes", "-F", OK_READ },
	{ "rebase", "--exec", OK_CODE },
	{ "rebase", "-x", OK_CODE },
	{ "show", "--ext-diff", OK_ESC },
	{ "show", "--output", OK_WRITE },
	{ "tag", "--file", OK_READ },
	{ "tag", "-F", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_go[] = {
	{ NULL, "-exec", OK_CODE },
	{ NULL, "-modfile", OK_READ },
	{ NULL, "-o", OK_WRITE },
	{ NULL, "-overlay", OK_READ },
	{ NULL, "-pkgdir", OK_WTREE },
	{ NULL, "-toolexec", OK_CODE },
	{ "env", "-u", OK_ESC },
	{ "env", "-w", OK_ESC },
	{ NULL, "-vettool", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_gradle[] = {
	{ NULL, "--gradle-user-home", OK_WTREE },
	{ NULL, "--init-script", OK_CODE },
	{ NULL, "-I", OK_CODE },
	{ NULL, "-g", OK_WTREE },
	{ NULL, "--build-file", OK_INPROJ },
	{ NULL, "--settings-file", OK_INPROJ },
	{ NULL, "-b", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_grep[] = {
	{ NULL, "--exclude-from", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_jest[] = {
	{ NULL, "--config", OK_INPROJ },
	{ NULL, "-c", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_jq[] = {
	{ NULL, "--from-file", OK_READ },
	{ NULL, "--rawfile", OK_READ2 },
	{ NULL, "--slurpfile", OK_READ2 },
	{ NULL, "-f", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_less[] = {
	{ NULL, "--LOG-FILE", OK_WRITE },
	{ NULL, "--lesskey-content", OK_CODE },
	{ NULL, "--lesskey-file", OK_CODE },
	{ NULL, "--lesskey-src", OK_CODE },
	{ NULL, "--log-file", OK_WRITE },
	{ NULL, "-O", OK_WRITE },
	{ NULL, "-k", OK_CODE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_make[] = {
	{ NULL, "--eval", OK_CODE },
	{ NULL, "-E", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_man[] = {
	{ NULL, "--browser", OK_CODE },
	{ NULL, "--config-file", OK_CODE },
	{ NULL, "--html", OK_CODE },
	{ NULL, "--local-file", OK_READ },
	{ NULL, "--pager", OK_CODE },
	{ NULL, "-C", OK_CODE },
	{ NULL, "-H", OK_CODE },
	{ NULL, "-P", OK_CODE },
	{ NULL, "-l", OK_READ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_mvn[] = {
	{ NULL, "--global-settings", OK_READ },
	{ NULL, "--settings", OK_READ },
	{ NULL, "--toolchains", OK_READ },
	{ NULL, "-gs", OK_READ },
	{ NULL, "-s", OK_READ },
	{ NULL, "-t", OK_READ },
	{ NULL, "--file", OK_INPROJ },
	{ NULL, "-f", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_mypy[] = {
	{ NULL, "--config-file", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_node[] = {
	{ NULL, "--cpu-prof-dir", OK_WTREE },
	{ NULL, "--diagnostic-dir", OK_WTREE },
	{ NULL, "--env-file", OK_READ },
	{ NULL, "--env-file-if-exists", OK_READ },
	{ NULL, "--experimental-loader", OK_CODE },
	{ NULL, "--heap-prof-dir", OK_WTREE },
	{ NULL, "--loader", OK_CODE },
	{ NULL, "--openssl-config", OK_CODE },
	{ NULL, "--redirect-warnings", OK_WRITE },
	{ NULL, "--report-directory", OK_WTREE },
	{ NULL, "--test-reporter-destination", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_npm[] = {
	{ NULL, "--globalconfig", OK_CODE },
	{ NULL, "--node-options", OK_CODE },
	{ NULL, "--script-shell", OK_CODE },
	{ NULL, "--userconfig", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_prettier[] = {
	{ NULL, "--plugin", OK_CODE },
	{ NULL, "--config", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_pytest[] = {
	{ NULL, "--basetemp", OK_WTREE },
	{ NULL, "--junit-xml", OK_WRITE },
	{ NULL, "--junitxml", OK_WRITE },
	{ NULL, "--log-file", OK_WRITE },
	{ NULL, "--report-log", OK_WRITE },
	{ NULL, "--result-log", OK_WRITE },
	{ NULL, "--resultlog", OK_WRITE },
	{ NULL, "--config-file", OK_INPROJ },
	{ NULL, "-c", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_rg[] = {
	{ NULL, "--ignore-file", OK_READ },
	{ NULL, "--pre", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_rsync[] = {
	{ NULL, "--rsh", OK_CODE },
	{ NULL, "--rsync-path", OK_CODE },
	{ NULL, "-e", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_ruff[] = {
	{ NULL, "--cache-dir", OK_WTREE },
	{ NULL, "--output-file", OK_WRITE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_sort[] = {
	{ NULL, "--compress-program", OK_CODE },
	{ NULL, "--files0-from", OK_READ },
	{ NULL, "--output", OK_WRITE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, "--temporary-directory", OK_WTREE },
	{ NULL, "-T", OK_WTREE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_tar[] = {
	{ NULL, "--checkpoint-action", OK_CODE },
	{ NULL, "--exclude-from", OK_READ },
	{ NULL, "--files-from", OK_READ },
	{ NULL, "--index-file", OK_WRITE },
	{ NULL, "--info-script", OK_CODE },
	{ NULL, "--listed-incremental", OK_WRITE },
	{ NULL, "--new-volume-script", OK_CODE },
	{ NULL, "--rmt-command", OK_CODE },
	{ NULL, "--rsh-command", OK_CODE },
	{ NULL, "--to-command", OK_CODE },
	{ NULL, "--use-compress-program", OK_CODE },
	{ NULL, "-F", OK_CODE },
	{ NULL, "-I", OK_CODE },
	{ NULL, "-T", OK_READ },
	{ NULL, "-X", OK_READ },
	{ NULL, "-g", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_time[] = {
	{ NULL, "--output", OK_WRITE },
	{ NULL, "-o", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_tsc[] = {
	{ NULL, "--declarationDir", OK_WTREE },
	{ NULL, "--generateTrace", OK_WTREE },
	{ NULL, "--outDir", OK_WTREE },
	{ NULL, "--outFile", OK_WRITE },
	{ NULL, "--tsBuildInfoFile", OK_WRITE },
	{ NULL, "-declarationDir", OK_WTREE },
	{ NULL, "-outDir", OK_WTREE },
	{ NULL, "-outFile", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_vitest[] = {
	{ NULL, "--config", OK_INPROJ },
	{ NULL, "-c", OK_INPROJ },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_wget[] = {
	{ NULL, "--append-output", OK_WRITE },
	{ NULL, "--body-file", OK_READ },
	{ NULL, "--certificate", OK_READ },
	{ NULL, "--config", OK_CODE },
	{ NULL, "--directory-prefix", OK_WTREE },
	{ NULL, "--execute", OK_CODE },
	{ NULL, "--hsts-file", OK_WRITE },
	{ NULL, "--input-file", OK_READ },
	{ NULL, "--load-cookies", OK_READ },
	{ NULL, "--output-file", OK_WRITE },
	{ NULL, "--post-file", OK_READ },
	{ NULL, "--private-key", OK_READ },
	{ NULL, "--rejected-log", OK_WRITE },
	{ NULL, "--save-cookies", OK_WRITE },
	{ NULL, "--use-askpass", OK_CODE },
	{ NULL, "--warc-file", OK_WRITE },
	{ NULL, "-P", OK_WTREE },
	{ NULL, "-a", OK_WRITE },
	{ NULL, "-e", OK_CODE },
	{ NULL, "-i", OK_READ },
	{ NULL, "-o", OK_WRITE },
	{ NULL, NULL, OK_VAL },
};

static const struct optdef o_zip[] = {
	{ NULL, "--unzip-command", OK_CODE },
	{ NULL, "-TT", OK_CODE },
	{ NULL, NULL, OK_VAL },
};

/* Indexed by enum an_opts (analyse.h), which progs[] names. */
static const struct optset optsets[OPTS_N] = {
	[OPTS_NONE] = { 1, NULL },
	[OPTS_BAT] = { 1, o_bat },
	[OPTS_CARGO] = { 1, o_cargo },
	[OPTS_CC] = { 0, o_cc },
	[OPTS_CLANG_FORMAT] = { 1, o_clang_format },
	[OPTS_CURL] = { 1, o_curl },
	[OPTS_DIFF] = { 1, o_diff },
	[OPTS_ESLINT] = { 1, o_eslint },
	[OPTS_FILE] = { 1, o_file },
	[OPTS_GIT] = { 1, o_git },
	[OPTS_GO] = { 0, o_go },
	[OPTS_GRADLE] = { 1, o_gradle },
	[OPTS_GREP] = { 1, o_grep },
	[OPTS_JEST] = { 1, o_jest },
	[OPTS_JQ] = { 1, o_jq },
	[OPTS_LESS] = { 1, o_less },
	[OPTS_MAKE] = { 1, o_make },
	[OPTS_MAN] = { 1, o_man },
	[OPTS_MVN] = { 1, o_mvn },
	[OPTS_MYPY] = { 1, o_mypy },
	[OPTS_NODE] = { 0, o_node },
	[OPTS_NPM] = { 1, o_npm },
	[OPTS_PRETTIER] = { 1, o_prettier },
	[OPTS_PYTEST] = { 1, o_pytest },
	[OPTS_RG] = { 1, o_rg },
	[OPTS_RSYNC] = { 1, o_rsync },
	[OPTS_RUFF] = { 1, o_ruff },
	[OPTS_SORT] = { 1, o_sort },
	[OPTS_TAR] = { 1, o_tar },
	[OPTS_TIME] = { 1, o_time },
	[OPTS_TSC] = { 0, o_tsc },
	[OPTS_VITEST] = { 1, o_vitest },
	[OPTS_WGET] = { 1, o_wget },
	[OPTS_ZIP] = { 1, o_zip },
};


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
 * Judges the option values of v against the option set of its program.
 * sub: the subcommand, for entries that name one.
 */
void
an_opts_scan(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const struct optset *os;
	const struct optdef *d;
	int k;
	const char *s, *sub, *q;
	size_t n;

	if (pr->opts == OPTS_NONE)
		return;
	if ((unsigned)pr->opts >= OPTS_N || optsets[pr->opts].d == NULL) {
		/* a set named in progs[] but not written here: fail closed */
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option table",
		    "the option table has no entry for %s: its options "
		    "escalate", v->w[0].s);
		return;
	}
	os = &optsets[pr->opts];
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

			for (d = os->d; d->opt != NULL; d++) {
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
		for (q = s + 1; *q != '\0' && (q == s + 1 || os->cluster); q++) {
			int takes = strchr(pr->optarg, *q) != NULL;

			for (d = os->d; d->opt != NULL; d++) {
				struct sh_word t, *val = NULL;
				char shown[3] = { '-', *q, '\0' };

				if (d->opt[1] != *q || d->opt[2] != '\0' ||
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
