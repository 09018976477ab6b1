/*
 * init_gemini.h - the folder trust `sbx init --gemini` records for the
 * Gemini CLI, and its removal.
 *
 * Gemini CLI runs a project's .gemini/settings.json hooks only in a
 * trusted folder (folder trust is on by default); in an untrusted one it
 * skips them, so sbx adds the folder to Gemini's trustedFolders.json
 * ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, else $GEMINI_CLI_HOME or $HOME, then
 * .gemini/trustedFolders.json) as "TRUST_FOLDER", keeping the user's other
 * entries, and refuses to override the user's "DO_NOT_TRUST".
 */
#ifndef SBX_INIT_GEMINI_H
#define SBX_INIT_GEMINI_H

#include "common/base/util.h"

/* Prints what it did; on failure prints what to add by hand. 0 or -1. */
int init_gemini_trust(const char *folder);

/* Takes FOLDER's "TRUST_FOLDER" out of FILE (and FILE, when sbx created
 * it and nothing else is left). 1 removed, 0 not there, -1 error. */
int gemini_trust_remove(const char *file, const char *folder, int created_file,
    struct sbx_err *err);

/* Where Gemini's trustedFolders.json is. 0 or -1. */
int gemini_trust_path(char *out, size_t outsz, struct sbx_err *err);

/* 1 when FILE trusts FOLDER (its own entry, or a parent's TRUST_FOLDER),
 * 0 when not (or no file), -1 unreadable. */
int gemini_folder_trusted(const char *file, const char *folder, struct sbx_err *err);

#endif
