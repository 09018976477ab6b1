/*
 * init_codex.h - the trust records `sbx init --codex` writes into
 * Codex's config.toml (see codex_trust.h). Prints what it did; on
 * failure prints the exact lines to add by hand. 0 or -1.
 */
#ifndef SBX_INIT_CODEX_H
#define SBX_INIT_CODEX_H

int init_codex_trust(const char *folder, const char *bindir);

#endif
