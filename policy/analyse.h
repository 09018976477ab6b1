/*
 * analyse.h - what the modules of the shell analyser share (internal; the
 * evidence of a call is in evidence.h).
 *
 * Layer: analysers (see docs/ARCHITECTURE.md). May include
 * policy/evidence.h only (and, below it, rules.h, shell.h, path.h).
 *
 * The analyser is split by concern:
 *   analyse.c  the line: strings, simple commands, redirections,
 *              variables, cd, wrappers (env, sudo, nice, xargs ...)
 *   progs.c    the table of known programs, the dispatcher by class
 *   args.c     operands, paths of words, globs, catastrophes
 *   files.c    file utilities: cat, rm, cp, mv, ln, chmod, dd
 *   net.c      network clients: curl, wget, ssh, nc ...
 *   code.c     code runners: shells, interpreters, build tools, CLIs
 *   git.c      git, subcommand by subcommand
 *   text.c     find, sed, awk
 *   opts.c     the one walk over options, and what each option of a
 *              program does, from tables (opts.h)
 *   glob.c     what globs and brace expansions in paths can reach
 *   archive.c  tar, unzip, zip
 *
 * Rules: handlers judge through the triggers (trigger.c) and ev_note(),
 * which only ever raises a verdict; nothing here can lower one. A struct
 * cmdv borrows the words of a parse for one call.
 */
#ifndef SBX_POLICY_ANALYSE_H
#define SBX_POLICY_ANALYSE_H

#include "policy/evidence.h"

enum cls {
	C_NOFILE,       /* no file arguments: echo, pwd */
	C_READ,         /* arguments are files it reads */
	C_GREP,         /* first argument a pattern, then files */
	C_WRITE,        /* arguments are files it writes */
	C_MODE,         /* chmod/chown: first argument a mode, then files */
	C_CPMV,         /* cp/mv/ln/install: last argument written */
	C_DD,
	C_PRIV,         /* sudo, doas: privilege change, then a command */
	C_ADMIN,        /* system administration: escalate */
	C_CATA,         /* mkfs and friends: deny */
	C_NET,          /* curl, ssh ...: network */
	C_SHELL,        /* sh, bash ...: -c strings, scripts, stdin */
	C_INTERP,       /* python, node ...: inline code, scripts */
	C_WRAP,         /* nice, timeout ...: then a command */
	C_BUILD,        /* make, cargo ...: runs project code */
	C_CLI,          /* known CLIs (cloud, containers): only --help passes */
	C_GIT, C_FIND, C_SED, C_AWK, C_CD, C_SOURCE, C_EVAL, C_XARGS, C_ENV,
	C_SU, C_EDITOR, C_KILL, C_ESC,
	C_LINT,         /* formatters and linters: project code, operands written */
	C_TAR, C_UNZIP, C_ZIP,
};

/*
 * The options of a program whose values have effects (opts.c): a file
 * written or read, a tree written, code that runs. Programs of one family
 * share a set (cc, gcc, clang, c++, g++).
 */
enum an_opts {
	OPTS_NONE,
	OPTS_BAT,
	OPTS_CARGO,
	OPTS_CC,
	OPTS_CLANG_FORMAT,
	OPTS_CURL,
	OPTS_DATE,
	OPTS_DIFF,
	OPTS_DU,
	OPTS_ESLINT,
	OPTS_FD,
	OPTS_FILE,
	OPTS_GO,
	OPTS_GRADLE,
	OPTS_GREP,
	OPTS_ICONV,
	OPTS_JEST,
	OPTS_JQ,
	OPTS_LESS,
	OPTS_LS,
	OPTS_MAKE,
	OPTS_MAN,
	OPTS_MVN,
	OPTS_MYPY,
	OPTS_NODE,
	OPTS_NPM,
	OPTS_PRETTIER,
	OPTS_PYTEST,
	OPTS_PYTHON,
	OPTS_RG,
	OPTS_RSYNC,
	OPTS_RUSTC,
	OPTS_RUFF,
	OPTS_SORT,
	OPTS_SSH,
	OPTS_TAR,
	OPTS_TIME,
	OPTS_TREE,
	OPTS_TSC,
	OPTS_UNZIP,
	OPTS_VITEST,
	OPTS_WC,
	OPTS_WGET,
	OPTS_ZIP,
	OPTS_N
};

struct prog {
	const char *name;
	enum cls cls;
	const char *optarg;     /* short options that take a value */
	int npos;               /* C_WRAP: positional words before the command */
	enum an_opts opts;      /* its options' effects, judged by
	                           an_opts_scan before its class handler */
};

/* A view of words: the command being judged. */
struct cmdv {
	struct sh_word *w;
	int n;
	const struct sh_cmd *c;         /* the simple command it came from */
	struct sh_parse *sp;            /* for allocations */
	int pid;                        /* parse id, for pipeline tracking */
	int extra;                      /* xargs/find -exec add words: 1
	                                   names an earlier stage made from
	                                   secrets, 2 names not known, 3 names
	                                   of project files that are never
	                                   sbx's own */
};

#include "policy/opts.h"

/* Called for each operand of a command (see an_operands). */
typedef void (*operand_fn)(struct ev *, struct cmdv *, struct sh_word *, int);

const struct prog *an_prog_find(const char *name);
void an_classify(struct ev *ev, struct cmdv *v, const struct prog *pr,
    const char *name);
int an_lit(const struct sh_word *w);
int an_is_opt(const struct sh_word *w);
int an_has_word(const struct cmdv *v, int from, const char *s);
int an_has_short(const struct cmdv *v, int from, char ch, const char *optarg);
int an_cluster_takes_next(const char *s, const char *optarg);
int an_operands(struct ev *ev, struct cmdv *v, int from,
    const char *optarg, operand_fn fn);
const char *an_wtext(const struct sh_word *w);
#define AN_OPAQUE (-2)    /* an_word_path: a value that cannot be known */
int an_word_path(const struct ev *ev, const struct sh_word *w, char *out,
    size_t outsz);
void an_read_opaque(struct ev *ev, const struct sh_word *w, const char *what);
void an_op_read(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx);
void an_op_read_tree(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx);
void an_read_tree_how(struct ev *ev, struct cmdv *v, struct sh_word *w,
    int how);
void an_read_tree_names(struct ev *ev, struct cmdv *v, struct sh_word *w,
    int how, const struct tree_names *names);
void an_op_read_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w,
    int idx);
void an_glob_write(struct ev *ev, struct cmdv *v, const struct sh_word *w);
int an_glob_secret(struct ev *ev, struct cmdv *v, const struct sh_word *w);
int an_glob_secret_dry(struct ev *ev, const struct sh_word *w);
int an_brace_each(struct ev *ev, struct cmdv *v, const struct sh_word *w,
    void (*fn)(struct ev *, struct cmdv *, struct sh_word *));
void an_glob_read(struct ev *ev, struct cmdv *v, const struct sh_word *w);
void an_write_word(struct ev *ev, struct cmdv *v, struct sh_word *w);
void an_write_tree_word(struct ev *ev, struct cmdv *v, struct sh_word *w);
void an_op_write(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx);
void an_op_write_tree(struct ev *ev, struct cmdv *v, struct sh_word *w,
    int idx);
void an_op_write_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w,
    int idx);
void an_op_write_tree_skip1(struct ev *ev, struct cmdv *v,
    struct sh_word *w, int idx);
void an_unknown_targets(struct ev *ev, struct cmdv *v);
void an_check_catastrophic_tree(struct ev *ev, struct cmdv *v,
    const char *what);
void an_check_whole_project(struct ev *ev, struct cmdv *v);
int an_fork_bomb(const char *t, size_t len);
void an_run_file(struct ev *ev, const struct sh_word *w, const char *what);
int an_cwd_in_project(const struct ev *ev);
void an_cls_read(struct ev *ev, struct cmdv *v, const struct prog *pr);
/* Claude Code's Grep tool: path read as a tree, narrowed by glob or type
 * (NULL: none) as rg reads them (files.c). */
void an_grep_tool(struct ev *ev, const char *path, const char *glob,
    const char *type);
void an_cls_write(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_mode(struct ev *ev, struct cmdv *v, const struct prog *pr);
int an_mode_special(const struct sh_word *w);
void an_cls_cpmv(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_dd(struct ev *ev, struct cmdv *v);
void an_cls_net(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_net_host_word(struct ev *ev, const char *what, const char *s);
void an_cls_shell(struct ev *ev, struct cmdv *v);
void an_cls_interp(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_build(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_cli(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_lint(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_tar(struct ev *ev, struct cmdv *v);
void an_cls_unzip(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_zip(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_git(struct ev *ev, struct cmdv *v);
void an_cls_find(struct ev *ev, struct cmdv *v);
int an_find_names_safe(const struct cmdv *v);
/* 1 when the word S is a find primary that runs, asks or writes a file
 * (-exec, -ok, -fprint...), as find judges them. */
int an_find_word_acts(const char *s);
int an_glob_name_safe(const char *pat);
void an_cls_sed(struct ev *ev, struct cmdv *v);
void an_cls_awk(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_cd(struct ev *ev, struct cmdv *v);
void an_cls_wrap(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_env(struct ev *ev, struct cmdv *v);
void an_cls_xargs(struct ev *ev, struct cmdv *v);
void an_cls_priv(struct ev *ev, struct cmdv *v, const struct prog *pr);
void an_cls_su(struct ev *ev, struct cmdv *v);
void an_cls_editor(struct ev *ev, struct cmdv *v);
void an_cls_kill(struct ev *ev, struct cmdv *v);
void an_cls_eval(struct ev *ev, struct cmdv *v);
void an_check_assign(struct ev *ev, const char *a);
void an_set_options(struct ev *ev, struct cmdv *v);
void an_history(struct ev *ev, struct cmdv *v);
void an_set_names(struct ev *ev, struct cmdv *v, const char *name);
void an_check_var_name(struct ev *ev, const char *name, const char *val,
    const char *how);
void an_check_code_text(struct ev *ev, const char *s);
void an_names_secret(struct ev *ev, struct cmdv *v);
int an_output_used(const struct cmdv *v);
void an_echo_names(struct ev *ev, struct cmdv *v);
void an_arith_text(struct ev *ev, const char *t);
void an_arith_word(struct ev *ev, const struct sh_word *w);
void an_remember_var(struct ev *ev, const struct sh_word *w);
void an_eval_argv(struct ev *ev, struct cmdv *v);
void an_eval_string(struct ev *ev, const char *text, size_t len,
    const char *what, int same_shell);

/* Judges a shell command line (analyse.c): the entry of this layer. */
void shell_eval(struct ev *ev, const char *text, size_t len);

#endif
