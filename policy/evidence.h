/*
 * evidence.h - one call being judged: struct ev, the findings (ev_note,
 * ev_factor) and the write, read and network triggers (internal).
 *
 * Layer: evidence (see docs/ARCHITECTURE.md). May include policy/rules.h
 * and policy/shell.h only: nothing here knows the analyser or the tools.
 *
 * Ownership: a struct ev lives on the stack of policy_eval() for one
 * call and borrows everything.
 */
#ifndef SBX_POLICY_EVIDENCE_H
#define SBX_POLICY_EVIDENCE_H

#include "policy/rules.h"
#include "policy/shell.h"

#define SBX_EV_MAX_STRINGS 8    /* nesting of bash -c / eval strings */
#define SBX_EV_MAX_WRAPS   32   /* sudo nice env ... in a row */
#define SBX_EV_MAX_VARS    16   /* f=.env; cat $f: variables tracked */
#define SBX_EV_STACK0      4    /* subshell levels kept in struct ev */
#define SBX_EV_MAX_WPATHS  8    /* paths written, for cd; more: unknown */


struct ev_var {
	char name[64];
	char value[1024];
	int known;                      /* 0: assigned, value unknown */
	int tainted;                    /* read at run time: may be any path */
	int numeric;                    /* a count from $(wc ...), $((...)) */
};

struct ev {
	const struct policy *p;
	const struct policy_call *call;
	struct policy_result *res;
	int cwd_known;
	int strings;                    /* current bash -c nesting */
	int net_pipeline;               /* pipeline id that used the network */
	int parse_id;                   /* which parse net_pipeline refers to */
	int parses;
	char (*stack)[SBX_PATH_MAX];    /* saved cwds for subshells */
	int *stack_known;
	int nstack, capstack;
	int rank;                       /* risk when the reason was written */
	int wraps;                      /* current wrapper nesting */
	int nvars;
	int ifs_set;                    /* IFS assigned: splitting unknown */
	int pos_tainted;                /* set -- named secrets: $1 ... */
	int in_assign;                  /* judging an assignment's value */
	int in_child;                   /* judging what a wrapper runs */
	int cwd_tentative;              /* cwd holds along an && chain only */
	int nwpaths;
	int made_link;                  /* ln, cp -l/-s ran earlier in the line */
	int subst_unsafe;               /* a $(...) may print any path */
	int subst_nonnum;               /* a $(...) may print a non-number */
	int list_pipeline, list_parse;  /* a lister of project files ran in */
	int list_safe;                  /* ... and never names sbx's files */
	int secret_pipeline, secret_parse; /* a stage named secrets */
	int secret_out;                 /* ... nested in a stage of this one */
	int procsub_secret;             /* ... printed into a <(...) */
	struct sh_word *bx_words;       /* brace expansion in progress */
	int bx_n, bx_bad;
	struct sh_parse *bx_sp;
	struct policy_call callx;       /* the call, with home resolved */
	struct path_cache *pc;          /* lstat answers of this call */
	int xhome_ok;                   /* the policy's expanded lists are
	                                   for this call's home */
	/*
	 * Large buffers last: policy_eval() zeroes the struct up to cwd
	 * only (28 KiB a call otherwise). Each is written before it is read:
	 * cwd and home at set-up, vars[k] and wpaths[k] below nvars and
	 * nwpaths, stack0[k] below nstack, dflt_buf before it is handed out.
	 */
	char cwd[SBX_PATH_MAX];
	struct ev_var vars[SBX_EV_MAX_VARS];
	char dflt_buf[256];             /* ${X:-WORD}: WORD, while judged */
	char wpaths[SBX_EV_MAX_WPATHS][256]; /* paths the line writes */
	char home[SBX_PATH_MAX];
	char stack0[SBX_EV_STACK0][SBX_PATH_MAX]; /* stack, until it grows */
	int known0[SBX_EV_STACK0];
};

/* Records a finding; the worst verdict (first of equals) wins. */
__attribute__((format(printf, 5, 6)))
void ev_note(struct ev *ev, enum policy_verdict v, const char *trigger,
    const char *rule, const char *fmt, ...);
void ev_factor(struct ev *ev, unsigned f);

/* Triggers (trigger.c). Paths are as written; they are resolved here. */
void trig_write(struct ev *ev, const char *path, const char *what);
/* A write to a whole tree (rm -r, mv, cp -r into): also checks the
 * protected paths below it. filtered: only some files of the tree are
 * touched (find -name x -delete): reaching protected paths escalates
 * instead of denying. */
void trig_write_tree(struct ev *ev, const char *path, const char *what,
    int filtered);
void trig_read(struct ev *ev, const char *path, const char *what);
/* A read of every file below path (grep -r, find -exec cat): escalates
 * when the tree holds a denyRead path placed below it (~/.ssh under ~). */
void trig_read_tree(struct ev *ev, const char *path, const char *what);
/* how a tree walker reads (trig_read_tree_how) */
#define TREE_NOHIDDEN   1       /* skips names starting with "." (rg) */
#define TREE_FOLLOW     2       /* follows links (grep -R, rg -L) */
#define TREE_NAMES      4       /* lists names only (rg --files) */
#define TREE_MAX        10000L  /* entries looked at, at most */
void trig_read_tree_how(struct ev *ev, const char *path, const char *what,
    int how);
/* The names a walker reads (find -name, grep --include): a file whose
 * name matches none of them is not read. */
#define TREE_NAMES_MAX  16
struct tree_names {
	const char *v[TREE_NAMES_MAX];
	int n;                  /* 0: every name */
	int fold;               /* -iname: any case */
	const char *skip[TREE_NAMES_MAX];       /* directories not entered
	                                           (grep --exclude-dir) */
	int nskip;
};
void trig_read_tree_names(struct ev *ev, const char *path, const char *what,
    int how, const struct tree_names *names);
int trig_tree_secret(struct ev *ev, const char *path, int how,
    const struct tree_names *names);
#define TREE_FLAT       8       /* lists one directory, not below (ls) */
#define TREE_GITIGNORE  16      /* skips what a git root's .gitignore
                                   names (rg without -u, -g) */
int trig_is_secret(const struct ev *ev, const char *path, int tree);
/* 1 if res (resolved), or one of the depth directories above it, is a
 * git dir (HEAD, and objects/ or commondir) not named .git. */
int trig_git_dir(struct ev *ev, const char *res, int depth);
/* 1 if res (resolved) lies where the agent's writes are allowed: the
 * project, the temp dir, allowWrite, allow rules. */
int trig_agent_area(struct ev *ev, const char *res);
void trig_network(struct ev *ev, const char *host, const char *what);
/* The same with a port (0: not known). */
void trig_network_port(struct ev *ev, const char *host, int port, const char *what);
/* Entry k of l expanded for this call (cached); NULL: cannot be placed. */
const char *ev_pattern(const struct ev *ev, const struct plist *l, int k);
/* Makes the policy's expanded lists those of this call's home (once a
 * call: the home does not change while a call is judged); -1: no memory. */
int ev_cache_home(const struct ev *ev);
/* The same with what the triggers ask of it (struct pol_xent). */
const struct pol_xent *ev_pattern_ent(const struct ev *ev,
    const struct plist *l, int k);
const char *ev_pattern_lit(const struct ev *ev, const struct plist *l, int k,
    size_t *litlen);
/* Extracts the host of a URL ("https://user@h:1/x" -> "h"); -1 if none. */
int url_host(const char *url, char *host, size_t hostsz);

#endif
