/*
 * jail.h - what `sbx jail` asks bubblewrap for: the mount plan of the
 * jail and the bwrap argument vector.
 *
 * Contract:
 * - jail_plan_build() looks at the filesystem (lstat, readdir) and turns
 *   the folder, HOME, the config dir and the policy's path lists into an
 *   ordered list of mount operations. It creates nothing: placeholders
 *   for protected paths that do not exist yet are listed in
 *   plan->placeholders, and the caller creates them (empty directories,
 *   or files holding "." inside .git) before bwrap runs and removes them
 *   after.
 * - jail_argv() is pure: the same config gives the same argv. It never
 *   fails except on allocation (NULL).
 * - Order matters to bubblewrap: later mounts cover earlier ones, and
 *   every --remount-ro comes last, so that mount points can still be
 *   made inside a hidden (tmpfs) directory before it turns read-only.
 * - Everything the plan owns is freed by jail_plan_free().
 */
#ifndef SBX_JAIL_H
#define SBX_JAIL_H

#include <stddef.h>

#include "common/base/util.h"

/* Inside the jail: the proxy's Unix socket and the private /tmp. */
#define JAIL_PROXY_SOCKET "/tmp/.sbx-proxy.sock"
#define JAIL_MAX_MOUNTS   1024

enum jail_op {
	JAIL_RO,            /* --ro-bind P P */
	JAIL_RW,            /* --bind P P */
	JAIL_TMPFS,         /* --tmpfs P: private, or hides a directory */
	JAIL_HIDE_FILE,     /* --ro-bind STAGE/empty-file P */
	JAIL_PLACEHOLDER,   /* --ro-bind STAGE/empty P: a protected path not created yet */
	JAIL_PLACEHOLDER_FILE, /* --ro-bind STAGE/dot-file P: the same, for a file git
	                       reads from .git (commondir: "." is "this git dir") */
	JAIL_PLACEHOLDER_JSON, /* --ro-bind STAGE/json-file P ("{}"): a settings file an
	                       agent refuses to start without when it is a directory */
	JAIL_PLACEHOLDER_EMPTY, /* --ro-bind STAGE/empty-file P: likewise, an empty file */
	JAIL_REMOUNT_RO,    /* --remount-ro P */
	JAIL_PRIVATE,       /* --tmpfs P, writable: the jail's own, gone at the end */
};

/* What a placeholder is on the host (and the file bound over it). */
enum jail_ph {
	JAIL_PH_DIR = 0,            /* an empty directory: git ignores it */
	JAIL_PH_DOT = 1,            /* a file holding ".\n" (.git/commondir) */
	JAIL_PH_JSON = 2,           /* a file holding "{}\n" (settings.json) */
	JAIL_PH_EMPTY = 3,          /* an empty file (CLAUDE.md, config.toml) */
};

/* The content of a file placeholder of that kind ("" for a directory). */
const char *jail_ph_text(int kind);

struct jail_mount {
	enum jail_op op;
	char *path;                 /* owned by the plan */
};

struct jail_plan {
	struct jail_mount *m;
	size_t n, cap;
	char **placeholders;        /* host paths to create before and remove after */
	unsigned char *placeholder_file; /* enum jail_ph: what to create */
	size_t n_placeholders;
};

struct jail_paths {
	const char *folder;         /* resolved project folder (holds .sandbox/) */
	const char *home;           /* resolved HOME, or NULL */
	const char *config;         /* the sbx config dir, or NULL if it does not exist */
	const char *exe_dir;        /* where sbx and sbx-jail-init live */
	const char *const *deny_read;   /* policy filesystem.denyRead (~ and ./ forms) */
	size_t n_deny_read;
	const char *const *allow_read;  /* policy filesystem.allowRead */
	size_t n_allow_read;
	const char *const *protect;     /* selfProtection + denyWrite */
	size_t n_protect;
	int login;                  /* --login: the agent's own login stays visible */
};

/* 0, or -1 with err set (a protected path is a symlink, a cap, OOM). */
int jail_plan_build(struct jail_plan *plan, const struct jail_paths *in,
    struct sbx_err *err);
void jail_plan_free(struct jail_plan *plan);

struct jail_config {
	const char *bwrap;          /* path of bwrap */
	const char *init;           /* path of sbx-jail-init */
	const char *stage;          /* private staging dir: empty/, empty-file, dot-file,
	                               json-file (jail_ph_text), proxy.sock */
	const char *cwd;            /* --chdir */
	const char *proxy_socket;   /* host path of the proxy's socket; NULL: offline */
	const char *no_proxy;       /* NO_PROXY inside; may be NULL */
	const char *session;        /* the jail's session id */
	int status_fd;              /* --json-status-fd, or -1 */
	int as_root;                /* running as uid 0: drop every capability */
	const struct jail_plan *plan;
	char *const *command;       /* NULL-terminated */
};

/*
 * Does mount i of the plan need watching from outside while the jail
 * runs? A mount on a host directory entry is detached in every mount
 * namespace when that entry is removed or renamed over on the host (`git
 * config` renames over .git/config, an editor over ~/.netrc): inside the
 * jail the path then reaches the host's new file, writable or readable.
 * 1 for a mount whose parent, in the jail, is a live view of the host;
 * 0 for one inside a private tmpfs of the jail, or a remount.
 */
int jail_plan_watched(const struct jail_plan *plan, size_t i);

/* A NULL-terminated argv (free with jail_argv_free), or NULL on OOM. */
char **jail_argv(const struct jail_config *c);
void jail_argv_free(char **argv);

/*
 * NO_PROXY for the jail: the loopback names (localhost, 127.0.0.1, ::1)
 * go straight to the jail's own loopback, except those the policy lists
 * in allowed (network.allowedDomains, "host" or "host:port"): those go
 * through the proxy to the host. Writes into out; -1 if it does not fit.
 */
int jail_no_proxy(const char *const *allowed, size_t n, char *out, size_t outsz);

#endif
