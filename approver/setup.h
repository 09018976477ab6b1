/*
 * setup.h - wiring a folder into agents' configuration files, and
 * taking it out again.
 *
 * Each edit merges into the client's JSON file: the user's other keys,
 * hooks and servers stay as they were, in their order; running it twice
 * changes nothing. A file that exists but does not parse as a JSON
 * object is an error naming it, and nothing is written. What an edit
 * created (the file, a key) is recorded in .sandbox/setup.json so that
 * `sbx remove` takes out exactly that.
 */
#ifndef SBX_SETUP_H
#define SBX_SETUP_H

#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "common/base/util.h"

enum setup_kind {
	SETUP_CLAUDE,           /* .claude/settings.json (or settings.local.json) */
	SETUP_CLAUDE_MCP,       /* .mcp.json */
	SETUP_CODEX,            /* .codex/hooks.json */
	SETUP_CURSOR,           /* .cursor/hooks.json */
	SETUP_CURSOR_MCP,       /* .cursor/mcp.json */
	SETUP_GEMINI,           /* .gemini/settings.json */
};

struct setup_opts {
	const char *folder;     /* resolved project folder */
	const char *bindir;     /* where sbx-hook and sbx-mcp live */
	int local;              /* Claude: settings.local.json */
	int timeout;            /* hook timeout in seconds (Claude, Codex, Gemini) */
};

/* Adds sbx to one client's file. 1 changed, 0 already there, -1 error.
 * *file gets the path edited (relative to the folder). */
int setup_add(enum setup_kind kind, const struct setup_opts *o, const char **file,
    struct sbx_err *err);

/* What setup_add would do, writing nothing: 0, or -1 with err saying
 * why it would fail (a file that is not JSON: where and why). */
int setup_check(enum setup_kind kind, const struct setup_opts *o, const char **file,
    struct sbx_err *err);

/* A client's JSON file: file_read_nofollow (common/base/util.h), then the
 * text as an object (1 with *root, 0 absent, or -1 with err naming the
 * line and column of what is wrong). */
int setup_read_json(const char *path, size_t max, int flags, cJSON **root, mode_t *mode,
    struct sbx_err *err);

/* Writes root, pretty-printed, as DIR/NAME with this mode (temp file and
 * rename). 0, or -1 with err. */
int setup_write_json(const char *dir, const char *name, const cJSON *root, mode_t mode,
    struct sbx_err *err);

/* Takes out what setup_add recorded, for every kind. Prints what it did.
 * 0 or -1. */
int setup_remove_all(const char *folder, struct sbx_err *err);

/* Records in setup.json that CONFIG (an absolute path: Codex's
 * config.toml, KIND "codex-trust", or Gemini's trustedFolders.json,
 * "gemini-trust") got sbx's trust for the folder, and whether sbx created
 * the file or ended its last line. 0 or -1. */
int setup_record_trust(const char *folder, const char *kind, const char *config,
    int created_file, int added_newline, struct sbx_err *err);

/* sh_quote(s, 1) (common/protocol/queue.h: quotes s for sh -c when it needs
 * quoting) into out: 0, or -1 when it does not fit. */
int shell_quote(const char *s, char *out, size_t outsz);

/* The sbx-hook path that a hook command sbx init registered runs (the
 * wrapper that blocks when the binary is gone, or an older bare
 * "PATH MODE"). 0, or -1 when it cannot be read. */
int hook_command_exe(const char *command, char *out, size_t outsz);

#endif
