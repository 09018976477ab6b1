/*
 * redact.h - secret scrubbing for everything that enters the audit log.
 *
 * Pure: no I/O, no global state. What it finds is replaced by a marker
 * "[REDACTED:KIND]" (or, after a `password=`-like key, only the value):
 *
 *   AWS access key ids (AKIA..., ASIA...), GitHub tokens (ghp_, gho_,
 *   ghu_, ghs_, ghr_, github_pat_), GitLab tokens (glpat-, ...), Slack
 *   tokens (xox?-, xapp-) and webhook paths, OpenAI/Stripe/Google/npm
 *   style keys, `Bearer`/`Basic` credentials, JWT-shaped strings
 *   (eyJ....x), PEM private key blocks, the values of keys and flags
 *   whose name contains password, passwd, secret, token, api_key,
 *   access_key, private_key, credential or passphrase (`k=v`, `k: v`,
 *   `"k":"v"`, `--k v`), and the password (or token) in URL
 *   credentials (scheme://user:PASS@host).
 *
 * It errs on the side of redacting too much. It cannot know a secret
 * that has no recognisable shape and no telling name next to it.
 */
#ifndef SBX_REDACT_H
#define SBX_REDACT_H

#include <cjson/cJSON.h>

/* A scrubbed copy of s (caller frees); *count (may be NULL) gets the
 * number of redactions. NULL on OOM. */
char *redact_str(const char *s, int *count);

/* Does this key name (e.g. "GITHUB_TOKEN", "password") name a secret? */
int redact_key_is_secret(const char *key);

/*
 * Scrubs every string of a cJSON tree in place: values of secret-named
 * keys are replaced whole, other strings and key names go through
 * redact_str. Returns the number of redactions, or -1 on OOM (the tree
 * may then be half scrubbed: the caller must not write it).
 */
int redact_json(cJSON *v);

#endif
