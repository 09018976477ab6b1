/*
 * opts.h - the one walk over a command's options and operands, and the
 * tables that say what each option of a program does (opts.c).
 *
 * Layer: analysers (see docs/ARCHITECTURE.md). Included by analyse.h,
 * after struct cmdv; includes policy/evidence.h only.
 *
 * Rules:
 * - "--" is read in one place, an_walk_any: it ends the options and is no
 *   operand. Every other walk (an_walk_next, an_walk_prefix, an_opt_next)
 *   and every handler that reads options goes through it.
 * - An option that takes a value has it attached (-oFILE, -uoFILE),
 *   after "=" (--output=FILE, Go's -o=FILE) or in the next word, which is
 *   then no operand. A long option may be abbreviated (--out for
 *   --output) as getopt_long reads it; an abbreviation of two entries or
 *   more is flagged (ambiguous): handlers that must know escalate.
 * - A table is data: what each option does, and the handler's own tag.
 */
#ifndef SBX_POLICY_OPTS_H
#define SBX_POLICY_OPTS_H

#include "policy/evidence.h"

struct cmdv;
struct prog;

/* What an option does with its value (an_opts_scan applies these). */
enum ok_kind {
	OK_VAL,         /* takes a value that is harmless */
	OK_WRITE,       /* the value is a file written */
	OK_WTREE,       /* the value is a directory written or removed */
	OK_READ,        /* the value is a file read */
	OK_READ2,       /* two values: a name, then a file read (jq) */
	OK_NAMES,       /* the value is a file read that names the files
	                   the command acts on (tar -T, --pathspec-from-
	                   file): those are not known before it runs */
	OK_CODE,        /* the value is code or a program that runs */
	OK_ESC,         /* no value; the option alone does something a
	                   human decides */
	OK_INPROJ,      /* configuration that is code: only from the project */
	OK_FLAG,        /* no value; what it does is the handler's (tag) */
	OK_OPTVAL,      /* an optional value, attached only: -i[SUFFIX],
	                   --in-place[=SUFFIX]; the handler's (tag) */
};

struct optdef {
	const char *sub;        /* the subcommand it applies to, or NULL */
	const char *opt;        /* "-o", "--output", "-toolexec"; NULL ends */
	enum ok_kind kind;
	int tag;                /* what it means to its handler (0: nothing) */
};

/* The options of one program (or of a family: cc, gcc, clang...). */
struct optset {
	int cluster;            /* short options cluster: -abc, -oFILE */
	int minabbr;            /* shortest abbreviation of a long option,
	                           with its "--" (0: 3, one letter) */
	const struct optdef *d;
};

/*
 * how: AN_W_ALONE, only a lone "-x" of optarg takes the next word (-n5
 * has it attached, -abc are flags); AN_W_CLUSTER, so does a cluster that
 * ends with such a letter (-uo FILE); AN_W_NONE, no option takes one.
 */
enum an_walk_how { AN_W_NONE, AN_W_ALONE, AN_W_CLUSTER };

struct an_walk {
	int k;                  /* the next word to look at */
	int opts;               /* 0 after "--" (an_walk_prefix: or at the
	                           first operand) */
	int dashdash;           /* "--" was passed over */
	const char *optarg;
	enum an_walk_how how;
	/* an_opt_next: the table, and where it is inside an option word */
	const struct optset *os;
	const char *sub;        /* the subcommand, for entries naming one */
	int sub_lazy;           /* found (the first operand) when needed */
	int reread;             /* the next word an option takes is also
	                           read as a word of its own (an_opts_scan:
	                           a value that looks like an option is
	                           judged as one too) */
	int cur;                /* the option word being read, or -1 */
	const char *q;          /* its next letter, or NULL: long options */
	const struct optdef *d; /* the next entry to try */
	int hits, lhits, skip, takes, nlong;
	struct sh_word tail;    /* an attached value */
	char shown[3];          /* "-x", a letter of a cluster */
};

/* A word the table walk found: an operand, or one option it names. */
struct an_opt {
	int k;                  /* the word */
	const struct optdef *d; /* the entry; NULL: an option no entry names */
	int ambiguous;          /* an abbreviation of two entries or more
	                           (not told when it->reread) */
	struct sh_word *val;    /* its value (may point into the walk) */
	struct sh_word *val2;   /* OK_READ2: the second value */
	const char *name;       /* as written: the word, or "-x" */
};

void an_walk_init(struct an_walk *it, int from, const char *optarg,
    enum an_walk_how how);
/* The index of the next operand, or -1 when there is none. */
int an_walk_next(const struct cmdv *v, struct an_walk *it);
/*
 * The walk under all others: the index of the next word, an operand or
 * (*opt = 1) a literal option, or -1. "--" is passed over and ends the
 * options; the values of options are left to the caller, which moves
 * it->k past those it takes.
 */
int an_walk_any(const struct cmdv *v, struct an_walk *it, int *opt);
/*
 * The options of a wrapper before the command it runs (sudo, xargs, nice,
 * time): the index of the next option, or -1 where they end: at a word
 * not known before it runs, at "--" (passed over) or at the first
 * operand, which it->k then names. lone_dash: a lone "-" is an option
 * (su -). The caller moves it->k past the values it takes.
 */
int an_walk_prefix(const struct cmdv *v, struct an_walk *it, int lone_dash);

/*
 * The walk with a table: an_walk_init, then an_walk_table names the set
 * (and the subcommand, or NULL). Each call of an_opt_next returns 0 with
 * an operand, 1 with an option (one entry it names, once per entry and
 * per letter of a cluster; o->d NULL once for a word that names none), or
 * -1 at the end. Any word that starts with "-" is an option, also one
 * with expansions (-o$X). Letters of it->optarg not in the table take a
 * value too, given with o->d NULL, as is the value of --name=VALUE when
 * no entry names it. o->val is valid until the next call.
 */
void an_walk_table(struct an_walk *it, const struct optset *os,
    const char *sub);
int an_opt_next(const struct cmdv *v, struct an_walk *it, struct an_opt *o);

/* The table progs[] names (enum an_opts, analyse.h), or NULL. */
const struct optset *an_optset(int set);

/* Tags of the shared tables that handlers read: tar (archive.c) also
 * tags its modes with their letter ('x', 'c', 't' ...). */
enum { TAR_FILE = 256, TAR_DIR, TAR_ABS, TAR_STDOUT, TAR_LOCAL, TAR_REMOVE,
	TAR_DEREF };
/* ... unzip (archive.c): where it extracts, and modes that do not */
enum { UNZIP_DIR = 1, UNZIP_LIST, UNZIP_DOTDOT };
/* ... grep (files.c): -r, -R (links followed), -d/--directories ACTION
 * (recurse is -r), --include GLOB (the names read), --exclude-dir GLOB
 * (directories not entered) */
enum { GREP_DIRS = 1, GREP_REC, GREP_FOLLOW, GREP_INCLUDE, GREP_EXCLDIR };
/* ... the tree walkers and listers (files.c: rg, ls, tree, fd, du):
 * hidden names read (-a, --hidden, -.), rg's -u (counted: -uu reads
 * hidden names), ignore files off, links followed, names only (rg
 * --files), ls -R and -d, rg's globs and types (--type-add, --type-clear:
 * the types are not rg's own), a tree listed besides the operands (fd
 * --search-path, --base-directory); WALK_PAT: -e/-f give the pattern (grep's
 * tags are GREP_*, below 0x40) */
enum { WALK_HIDDEN = 1, WALK_U, WALK_NOIGNORE, WALK_FOLLOW, WALK_NAMES,
	WALK_DEEP, WALK_FLAT, WALK_GLOB, WALK_IGLOB, WALK_GLOBCASE, WALK_TYPE,
	WALK_TYPEADD, WALK_ROOT,
	WALK_PAT = 0x40 };      /* grep, rg -e/-f: the pattern is no operand */
/* ... python (code.c): inline code, a module */
enum { PY_CODE = 1, PY_MODULE };
/* ... and the network clients (net.c): what the value does */
enum {
	NET_OUT = 1,    /* the download is written there ("-": stdout) */
	NET_LOG,        /* a file written; the download is not named */
	NET_DIR,        /* the directory the download lands in */
	NET_REMOTE,     /* no value: the download keeps its remote name */
	NET_DATA,       /* data sent; @FILE reads FILE */
	NET_FORM,       /* a form sent; name=@FILE, name=<FILE read FILE */
	NET_UPLOAD,     /* a file read and sent (unknown: data sent) */
	NET_READ,       /* a file read: a key, a configuration */
	NET_CONFIG,     /* a configuration read (@FILE or FILE) */
};

/* what (option opt) acts on files named in a file: escalates */
void an_names_from(struct ev *ev, const char *what, const char *opt);

/* 1 when o names its entry in full (not abbreviated, not ambiguous). */
int an_opt_exact(const struct an_opt *o);

/* The option values of v judged against the set progs[] names for it. */
void an_opts_scan(struct ev *ev, struct cmdv *v, const struct prog *pr);

#endif
