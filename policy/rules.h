/*
 * rules.h - a loaded policy and how its rules match (internal; the
 * contract is policy.h).
 *
 * Layer: tables (see docs/ARCHITECTURE.md). May include policy/policy.h
 * and policy/path.h only: nothing here knows about a call being judged.
 *
 * Ownership: a struct policy owns every string in it.
 */
#ifndef SBX_POLICY_RULES_H
#define SBX_POLICY_RULES_H

#include "policy/path.h"
#include "policy/policy.h"

#define POLICY_MAX_ENTRY        1024    /* bytes per rule or path */

enum rule_kind {
	RK_BASH,        /* Bash(...) */
	RK_READ,        /* Read(...), Glob, Grep paths */
	RK_WRITE,       /* Edit(...) / Write(...) */
	RK_FETCH,       /* WebFetch(domain:...) */
	RK_TOOL,        /* a bare tool name, "mcp__srv__*" */
	RK_N
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
/* One entry of a path list, expanded for a home, with what the triggers
 * ask of it worked out once. */
struct pol_xent {
	char *v;                        /* expanded entry; NULL: not placed */
	size_t len;
	size_t lit;                     /* length before the first glob char */
	int base;                       /* the literal part is below 1 the
	                                   home, 2 the folder, 0 neither */
	size_t blen;                    /* the length of that base */
	char *place;                    /* the directory before any glob
	                                   ("/proc" for /proc/x*y/environ);
	                                   NULL: any depth, a name */
	char *need;                     /* its longest literal run
	                                   (path_pattern_need); NULL: none
	                                   longer than one byte */
	int deep;
	size_t tlen;                    /* for a tree: v[0..tlen) is the
	                                   directory before any glob; 0:
	                                   none (any depth) */
	int tglob;                      /* v holds a glob */
};

struct pol_xlist {
	const struct plist *l;
	struct pol_xent *e;
	int n;
};

struct policy {
	char *name;                     /* file name for messages */
	char *folder;
	char *config_dir;
	struct rule *rules;
	int nrules;
	int nkind[RK_N][3];             /* rules of each kind and verdict */
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
	char *rhome_in, *rhome;         /* policy_home(): the last home
	                                   resolved; rhome NULL: it could
	                                   not be */
	struct path_cache *seed;        /* what lstat said of the folder's
	                                   and that home's components, when
	                                   they were resolved */
	struct pol_walk *walks;         /* what walks of trees found
	                                   (trigger.c), POL_MAX_WALKS */
	int nwalks;
};

/* A tree walked for a tree reader (grep -r), and what was found: asked
 * once while a policy lives, like lstat (a policy serves one call). */
#define POL_MAX_WALKS   32
struct pol_walk {
	char *key;                      /* the root, how and the names */
	int rc;                         /* path_walk's answer */
	char *found;
	const char *pat;                /* the denyRead entry (p's) */
};
void pol_walks_free(struct policy *p);

/* always_ask.c: whether e is a valid always_ask entry. */
int always_ask_valid(const char *e);

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

/* The risk of a call with factors f. */
enum policy_risk rules_risk(unsigned f);

/* Claude-form rule lookup: the strongest rule of kind matching s. */
const struct rule *rule_find(const struct policy *p, enum rule_kind kind,
    enum policy_verdict v, const char *s, const struct policy_call *call);
/* Expands a rule path pattern to an absolute glob. */
int pattern_expand(const char *pat, int claude_form, const char *folder,
    const char *home, char *out, size_t outsz);
int domain_match(const char *pattern, const char *host);
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
/*
 * The home of a call resolved into out (path_resolve), -1 when it cannot
 * be. Like the folder, which is resolved when the policy is loaded, it is
 * resolved once for the life of p (per home): a policy serves one hook
 * call, one request of sbxd or one check.
 */
int policy_home(const struct policy *p, const char *home, char *out,
    size_t outsz);
/* What lstat said of the components of the folder and of the home last
 * given to policy_home (a seed for a call's path cache), or NULL. */
const struct path_cache *policy_seed(const struct policy *p);
/* Frees the expansions cached in p (struct pol_xlist). */
void policy_cache_free(struct policy *p);

#endif
