/*
 * codex_trust.h - making the real Codex CLI run sbx's hook.
 *
 * Codex runs a project's .codex/hooks.json only when its own config
 * (CODEX_HOME/config.toml, else ~/.codex/config.toml) trusts the project,
 * [projects."DIR"] trust_level = "trusted", and each hook,
 * [hooks.state."DIR/.codex/hooks.json:pre_tool_use:G:H"] trusted_hash =
 * "sha256:..." where the hash covers the hook's normalized declaration
 * (event, matcher, command, timeout, async, statusMessage). Without
 * both, Codex skips the hook silently: fail-open for sbx.
 *
 * `sbx init --codex` appends one block of its own to that file, between
 * two marker comments naming the folder, and `sbx remove` cuts exactly
 * that block out. The rest of the file is never rewritten: it is read
 * with a small TOML structure scanner only to make sure the block does
 * not clash with tables the user has (TOML forbids defining a table
 * twice). A file the scanner cannot follow, a symlink, or a clashing
 * definition is refused with a reason; nothing is written then.
 */
#ifndef SBX_CODEX_TRUST_H
#define SBX_CODEX_TRUST_H

#include <limits.h>
#include <stddef.h>

#include "common/base/util.h"

#define CODEX_HASH_LEN 72       /* "sha256:" + 64 hex + NUL, rounded up */

/* sbx's PreToolUse handler as Codex sees it in FOLDER/.codex/hooks.json. */
struct codex_hook {
	char key[PATH_MAX + 64];        /* hooks.state key */
	char hash[CODEX_HASH_LEN];      /* what Codex computes for it */
	char command[PATH_MAX + 32];
	long timeout;                   /* seconds, after Codex's default (600) */
};

/* What Codex's config says about one folder and its hook. */
struct codex_trust_state {
	char trust_level[32];           /* "" when the project has no entry */
	char trusted_hash[CODEX_HASH_LEN];      /* "" when the hook has none */
	int hook_disabled;              /* enabled = false */
	int has_block;                  /* sbx's own block for the folder is there */
	char mcp_command[PATH_MAX];     /* [mcp_servers.sbx] command, or "" */
};

/* CODEX_HOME/config.toml, else $HOME/.codex/config.toml. 0 or -1. */
int codex_config_path(char *out, size_t outsz, struct sbx_err *err);

/*
 * "sha256:HEX" over the canonical JSON of a command hook's identity, as
 * Codex computes it (event label such as "pre_tool_use"; matcher and
 * status may be NULL). 0 or -1.
 */
int codex_hook_hash(const char *event, const char *matcher, const char *command,
    long timeout, int async, const char *status, char out[CODEX_HASH_LEN]);

/*
 * Finds the PreToolUse handler in FOLDER/.codex/hooks.json whose command
 * is `command` (NULL: any command running "sbx-hook ... codex") and fills
 * *h. 1 found, 0 not there (or no file), -1 unreadable file.
 */
int codex_hook_find(const char *folder, const char *command, struct codex_hook *h,
    struct sbx_err *err);

/* Reads what CONFIG says about FOLDER and hook key KEY. 1 read, 0 no
 * file, -1 unreadable or unparseable (err says where). */
int codex_trust_read(const char *config, const char *folder, const char *key,
    struct codex_trust_state *st, struct sbx_err *err);

/*
 * Makes CONFIG trust FOLDER and hook h: replaces sbx's block for FOLDER
 * (if any) by a new one holding what is missing. *created_file is set
 * when the file did not exist or held only sbx's blocks (so sbx may
 * delete it once they are gone), *added_newline when sbx ended the file's
 * last line to append. 1 changed, 0 already trusted, -1 refused (err
 * says why; nothing written).
 */
int codex_trust_add(const char *config, const char *folder, const struct codex_hook *h,
    int *created_file, int *added_newline, struct sbx_err *err);

/* The lines codex_trust_add would append for FOLDER and h (for telling a
 * person what to add by hand). Caller frees; NULL on error. */
char *codex_trust_block(const char *folder, const struct codex_hook *h, int project,
    int hook);

/* Cuts sbx's block for FOLDER out of CONFIG; removes the file when sbx
 * created it and nothing else is left. 1 removed, 0 not there, -1 error. */
int codex_trust_remove(const char *config, const char *folder, int created_file,
    int added_newline, struct sbx_err *err);

#endif
