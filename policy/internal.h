/*
 * internal.h - what the policy modules share; not part of the contract.
 *
 * policy.c loads policies and judges tool calls; the four triggers
 * (shell, write, network, read) live in trigger.c; the shell analyser in
 * analyse.c and the modules listed in analyse.h.
 *
 * Ownership: a struct policy owns every string in it. A struct ev lives
 * on the stack of policy_eval() for one call and borrows everything.
 */
#ifndef SBX_POLICY_INTERNAL_H
#define SBX_POLICY_INTERNAL_H

#include "policy/path.h"
#include "policy/policy.h"
#include "policy/shell.h"

enum rule_kind {
	RK_BASH,        /* Bash(...) */
	RK_READ,        /* Read(...), Glob, Grep paths */
	RK_WRITE,       /* Edit(...) / Write(...) */
	RK_FETCH,       /* WebFetch(domain:...) */
	RK_TOOL,        /* a bare tool name, "mcp__srv__*" */
};

enum rule_origin { RO_BUILTIN, RO_FILE, RO_SELF };

struct rule {
	enum policy_verdict verdict;
	enum rule_kind kind;
	enum rule_origin origin;
	char *text;     /* as written, for messages: "Bash(npm test:*)" */
	char *arg;      /* inside the parentheses, or the tool name */
	int prefix;     /* Bash "x:*": prefix match on whole words */
};

/* A path list in sandbox-runtime vocabulary. */
struct plist {
	char **v;
	int n;
};

#define POL_MAX_XLISTS     8    /* path lists kept expanded */

/* A path list expanded for one home (see ev_pattern). */
struct pol_xlist {
	const struct plist *l;
	char **v;                       /* expanded entries; NULL: not placed */
	size_t *lit;                    /* length before the first glob char */
	int n;
};

struct policy {
	char *name;                     /* file name for messages */
	char *folder;
	char *config_dir;
	struct rule *rules;
	int nrules;
	struct plist deny_read, allow_read, allow_write, deny_write;
	struct plist allowed_domains, denied_domains;
	int net_ask_timeout;            /* network.ask_timeout_seconds */
	struct plist self_write;        /* self-protection: writes denied */
	struct policy_limits limits;
	int dual_risk;                  /* two approvers at this risk and above; -1 never */
	struct plist dual_bash;         /* two approvers for these Bash(...) patterns */
	struct plist always_ask;        /* "always_ask": no remembered rule covers these */
	struct pol_xlist xl[POL_MAX_XLISTS];    /* expansions, for xhome */
	int nxl;
	char *xhome;
};

/* always_ask.c: whether e is a valid always_ask entry. */
int always_ask_valid(const char *e);

#define SBX_EV_MAX_STRINGS 8    /* nesting of bash -c / eval strings */
#define SBX_EV_MAX_WRAPS   32   /* sudo nice env ... in a row */
#define SBX_EV_MAX_VARS    16   /* f=.env; cat $f: variables tracked */
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
	char cwd[SBX_PATH_MAX];
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
	struct ev_var vars[SBX_EV_MAX_VARS];
	int nvars;
	int ifs_set;                    /* IFS assigned: splitting unknown */
	int pos_tainted;                /* set -- named secrets: $1 ... */
	int in_assign;                  /* judging an assignment's value */
	char dflt_buf[256];             /* ${X:-WORD}: WORD, while judged */
	int in_child;                   /* judging what a wrapper runs */
	int cwd_tentative;              /* cwd holds along an && chain only */
	char wpaths[SBX_EV_MAX_WPATHS][256]; /* paths the line writes */
	int nwpaths;
	int made_link;                  /* ln, cp -l/-s ran earlier in the line */
	int subst_unsafe;               /* a $(...) may print any path */
	int subst_nonnum;               /* a $(...) may print a non-number */
	int list_pipeline, list_parse;  /* a lister of project files ran in */
	int list_safe;                  /* ... and never names sbx's files */
	int secret_pipeline, secret_parse; /* a stage named secrets */
	struct sh_word *bx_words;       /* brace expansion in progress */
	int bx_n, bx_bad;
	struct sh_parse *bx_sp;
	struct policy_call callx;       /* the call, with home resolved */
	char home[SBX_PATH_MAX];
};

/* Risk factors: short names for the POLICY_F_* bits. */
#define F_PRIV          POLICY_F_PRIVILEGE
#define F_WRITE_OUT     POLICY_F_WRITE_OUTSIDE
#define F_SECRET        POLICY_F_SECRET_READ
#define F_NETWORK       POLICY_F_NETWORK
#define F_DESTRUCTIVE   POLICY_F_DESTRUCTIVE
#define F_NETCODE       POLICY_F_NETWORK_CODE
#define F_PROTECTED     POLICY_F_PROTECTED
#define F_UNKNOWN       POLICY_F_UNKNOWN
#define F_CODE          POLICY_F_RUNS_CODE
#define F_CATASTROPHIC  POLICY_F_CATASTROPHIC

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
int trig_is_secret(const struct ev *ev, const char *path, int tree);
void trig_network(struct ev *ev, const char *host, const char *what);
/* The same with a port (0: not known). */
void trig_network_port(struct ev *ev, const char *host, int port, const char *what);
/* Claude-form rule lookup: the strongest rule of kind matching s. */
const struct rule *rule_find(const struct policy *p, enum rule_kind kind,
    enum policy_verdict v, const char *s, const struct policy_call *call);
/* Expands a rule path pattern to an absolute glob. */
int pattern_expand(const char *pat, int claude_form, const char *folder,
    const char *home, char *out, size_t outsz);
int domain_match(const char *pattern, const char *host);
/* Entry k of l expanded for this call (cached); NULL: cannot be placed. */
const char *ev_pattern(const struct ev *ev, const struct plist *l, int k);
const char *ev_pattern_lit(const struct ev *ev, const struct plist *l, int k,
    size_t *litlen);
void policy_cache_free(struct policy *p);
/*
 * Network entries (hostport.c): "name", "*.name", IP literals, each
 * optionally ":port" ("[v6]:port"). hostport_parse splits one (pattern:
 * "*." allowed), port 0 when none; -1 when malformed. net_entry_match:
 * whether entry covers host:port (port 0 = unknown: a deny entry with a
 * port matches, an allow entry does not).
 */
int hostport_parse(const char *s, int pattern, char *host, size_t hostsz, int *port);
int net_entry_valid(const char *s);
int net_entry_match(const char *entry, const char *host, int port, int deny);
/* Extracts the host of a URL ("https://user@h:1/x" -> "h"); -1 if none. */
int url_host(const char *url, char *host, size_t hostsz);

/* Shell analysis (analyse.c). */
void shell_eval(struct ev *ev, const char *text, size_t len);

#endif
