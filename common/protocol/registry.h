/*
 * registry.h - the folders sbx init prepared: CONFIG/folders, one
 * absolute path per line. `sbxd --all` serves them, `sbx watch --all`
 * shows them. Updated by temp file + rename.
 */
#ifndef SBX_REGISTRY_H
#define SBX_REGISTRY_H

#include "common/base/util.h"

/* 1 added, 0 already there, -1 error. */
int registry_add(const char *config, const char *folder, struct sbx_err *err);
/* 1 removed, 0 was not there, -1 error. */
int registry_remove(const char *config, const char *folder, struct sbx_err *err);
/*
 * Every folder recorded, from one read of the file (a registry_add in
 * between replaces the file whole: one read sees it before or after,
 * never a count of one and a list of the other). *out (caller frees;
 * NULL when none) holds them, each a PATH_MAX buffer. Returns how many,
 * or -1 with err set: an unreadable file, a line that is not an
 * absolute path or too long to be one (never skipped silently).
 */
int registry_read(const char *config, char (**out)[4096], struct sbx_err *err);

#endif
