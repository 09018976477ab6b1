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
/* How many folders are recorded, or -1. */
int registry_count(const char *config, struct sbx_err *err);
/* Fills out[] (each PATH_MAX) with up to max folders; returns the count or -1. */
int registry_list(const char *config, char (*out)[4096], int max, struct sbx_err *err);

#endif
