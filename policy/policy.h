/*
 * policy.h - decides allow / escalate / deny for one tool call.
 *
 * Contract:
 * - policy_load() reads FOLDER/.sandbox/policy.json over the built-in
 *   defaults. A missing, empty, unreadable or invalid file is an error
 *   (NULL, with a message naming the file, line and a hint); the caller
 *   MUST then deny. Self-protection rules are added on every load.
 * - policy_eval() is pure: no I/O beyond resolving paths (realpath of
 *   existing parents). It never fails open: anything it cannot judge
 *   is escalated, internal errors deny.
 * - The caller owns the struct policy and frees it with policy_free().
 *   Strings in struct policy_call are borrowed for the call only.
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stddef.h>
#include <cjson/cJSON.h>

enum policy_verdict {
	POLICY_ALLOW = 0,
	POLICY_ESCALATE = 1,
	POLICY_DENY = 2,
};

/* How bad the call would be if it ran: computed from its factors. */
enum policy_risk {
	POLICY_RISK_LOW = 0,
	POLICY_RISK_MEDIUM = 1,
	POLICY_RISK_HIGH = 2,
	POLICY_RISK_CRITICAL = 3,
};

/* Risk factors (bits of struct policy_result.factors). */
#define POLICY_F_PRIVILEGE      0x001   /* sudo, su, doas, setuid ... */
#define POLICY_F_WRITE_OUTSIDE  0x002   /* writes outside the project */
#define POLICY_F_SECRET_READ    0x004   /* reads a secret (keys, .env) */
#define POLICY_F_NETWORK        0x008   /* network egress */
#define POLICY_F_DESTRUCTIVE    0x010   /* destroys data (rm -r, reset --hard) */
#define POLICY_F_NETWORK_CODE   0x020   /* runs code fetched from the network */
#define POLICY_F_PROTECTED      0x040   /* touches sbx's own files */
#define POLICY_F_UNKNOWN        0x080   /* could not be analysed */
#define POLICY_F_RUNS_CODE      0x100   /* runs project code (tests, builds) */
#define POLICY_F_CATASTROPHIC   0x200   /* e.g. rm -rf /, mkfs */

struct policy_error {
	char msg[512];
};

/* Operational limits, read from the "limits" object of policy.json. */
struct policy_limits {
	int hook_wait_seconds;      /* how long sbx-hook waits for a result (default 300) */
	int max_pending;            /* pending requests per folder (default 20) */
	int max_per_minute;         /* new requests per minute (default 30) */
	int request_ttl_seconds;    /* undecided requests expire (default 3600) */
	int exec_timeout_seconds;   /* command run time before SIGTERM (default 600) */
	long output_cap_bytes;      /* captured bytes per stream (default 1 MiB) */
	/* Resource limits of a command sbxd runs (0: none). */
	int exec_cpu_seconds;       /* RLIMIT_CPU (default 600) */
	long long exec_memory_bytes; /* RLIMIT_DATA, per process (default 4 GiB) */
	int exec_max_processes;     /* processes at once (default 512): a pids
	                               cgroup when sbxd may make one, and
	                               RLIMIT_NPROC above the user's count */
	int keep_results_days;      /* finished output kept after delivery (default 30;
	                               0: pruned right after delivery) */
	int keep_results_mb;        /* delivered output kept, oldest pruned first past
	                               this many MiB (default 1024; 0: no size cap) */
};

struct policy_call {
	const char *tool;           /* tool_name: "Bash", "Write", "mcp__srv__tool", ... */
	const cJSON *input;         /* tool_input object; may be NULL */
	const char *cwd;            /* absolute working directory of the call */
	const char *folder;         /* absolute, resolved project folder (holds .sandbox/) */
	const char *home;           /* the user's home, for ~. NULL: rules
	                               written with ~ cannot be placed, so the
	                               restricting ones match every path */
	const char *config_dir;     /* the sbx config dir (keys), always protected */
	const char *tmpdir;         /* the session's temp dir ($TMPDIR or /tmp):
	                               writes below it are allowed like the
	                               project's; NULL: none */
};

struct policy_result {
	enum policy_verdict verdict;
	char trigger[16];           /* "shell", "write", "network", "read", "tool" */
	char rule[160];             /* the rule that decided, e.g. "deny Bash(rm -rf:*)" */
	char reason[512];           /* one line a person and a model can act on */
	enum policy_risk risk;      /* from factors */
	unsigned factors;           /* POLICY_F_* bits */
};

struct policy;

/* Returns a policy or NULL with err->msg set. */
struct policy *policy_load(const char *folder, const char *config_dir,
    struct policy_error *err);

/* As policy_load, and hands back the exact bytes it parsed (caller frees
 * *text) so that the caller can hash what it judged with. */
struct policy *policy_load_text(const char *folder, const char *config_dir,
    struct policy_error *err, char **text, size_t *len);

/* As policy_load_text, with policy.json read through SBFD, an open
 * FOLDER/.sandbox: what a caller reads beside it (policy.accepted) then
 * comes from the same directory, whatever the folder's owner renames
 * meanwhile (deployment 3: the folder is the agent's, .sandbox sbxd's). */
struct policy *policy_load_at(int sbfd, const char *folder, const char *config_dir,
    struct policy_error *err, char **text, size_t *len);

/* Parses a policy from memory; name is used in messages. */
struct policy *policy_load_buffer(const char *name, const char *text, size_t len,
    const char *folder, const char *config_dir, struct policy_error *err);

void policy_free(struct policy *p);
/*
 * A policy keeps what walks of trees found (grep -r DIR: whether DIR
 * holds denyRead files) while it lives: a caller that keeps one policy
 * for more than one call (sbxd's cache) forgets them before each call.
 */
void policy_forget_fs(const struct policy *p);

/* Fills *res. Always returns a verdict; never allows on error. */
void policy_eval(const struct policy *p, const struct policy_call *call,
    struct policy_result *res);

const struct policy_limits *policy_limits(const struct policy *p);

/*
 * network.ask_timeout_seconds: how long sbx-proxy holds a connection to
 * an unlisted host while a human is asked (1..3600, default 60).
 */
#define POLICY_NET_ASK_TIMEOUT 60
int policy_net_ask_timeout(const struct policy *p);

/*
 * How many different approvers an escalated call needs: 2 when its risk
 * reaches "two_approvers.risk" or its command matches one of
 * "two_approvers.rules" (dual control), else 1.
 */
int policy_approvals_needed(const struct policy *p, const struct policy_call *call,
    const struct policy_result *res);

/*
 * The always_ask entry (built in, or from the policy's "always_ask"
 * list) that matches command, or NULL: no remembered rule may cover such
 * a command, a human decides each one (force pushes, --delete, --mirror,
 * reset --hard ...). p may be NULL (built-ins only). Borrowed string.
 */
const char *policy_always_ask(const struct policy *p, const char *command);

/* The built-in always_ask entries, NULL-terminated (static storage). */
const char *const *policy_always_ask_builtin(void);

/* The default policy.json text that `sbx init` writes (static storage). */
const char *policy_default_text(void);

const char *policy_verdict_name(enum policy_verdict v);

/* "low", "medium", "high", "critical". */
const char *policy_risk_name(enum policy_risk r);

/*
 * Writes the factor names ("privilege change, network egress") into buf.
 * Returns buf; an empty string when there are none.
 */
char *policy_factors_text(unsigned factors, char *buf, size_t bufsz);

/* The name of one POLICY_F_* bit ("secret read"), or NULL. */
const char *policy_factor_name(unsigned bit);

/*
 * The effective policy after merging the built-in defaults, the file and
 * the self-protection rules, as a JSON object (caller frees with
 * cJSON_Delete). NULL on allocation failure.
 */
cJSON *policy_to_json(const struct policy *p);

#endif
