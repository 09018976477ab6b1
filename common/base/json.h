/*
 * json.h - helpers on cJSON: typed lookups and a canonical encoding.
 *
 * Lookups are case-sensitive and type-checked: a value of the wrong
 * type is reported as absent. Returned pointers borrow from the cJSON
 * tree and must not outlive it.
 */
#ifndef SBX_JSON_H
#define SBX_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

const char *json_str(const cJSON *obj, const char *key);
/* 0 and *out set when key holds an integral number below 10^15 in
 * magnitude (one that prints back exactly); -1 otherwise. */
int json_int(const cJSON *obj, const char *key, int64_t *out);
/* 1 / 0 for true / false, -1 when absent or not a boolean. */
int json_bool(const cJSON *obj, const char *key);

/*
 * Canonical text of a JSON value: object keys sorted bytewise (stable
 * for duplicates), no whitespace, fixed string escapes, integers
 * printed exactly. The same value always gives the same bytes, whatever
 * order or spacing it arrived in. Caller frees. NULL on OOM or depth.
 */
char *json_canonical(const cJSON *v);

/* 1 when text has a \u0000 escape (cJSON would cut the string there);
 * over-cautious: an escaped backslash before "u0000" counts too. */
int json_has_nul(const char *text, size_t len);

/*
 * 0 when text is one JSON value and nothing else (but whitespace), with
 * no duplicate object keys (compared after unescaping), no raw control
 * byte or NUL in a string, no \u0000, no lone surrogate, valid UTF-8
 * (RFC 3629) and depth <= 256. Else -1 and why says what was found.
 * For input the hook judges: cJSON accepts all of these.
 */
int json_strict_check(const char *text, size_t len, char *why, size_t whysz);

/*
 * The one parse for text sbx judges (hook stdin, MCP lines, `sbx policy
 * check --hook-json`): json_has_nul, cJSON, then json_strict_check. The
 * value (any type; caller frees), or NULL with *bad saying which step
 * refused it and why a short phrase ("not JSON", "a duplicate key ...").
 */
enum json_bad { JSON_OK, JSON_BAD_NUL, JSON_BAD_SYNTAX, JSON_BAD_STRICT };
cJSON *json_parse_strict(const char *text, size_t len, enum json_bad *bad, char *why,
    size_t whysz);

/* Keys in their order, two-space indentation, a final newline: for
 * files people read and edit (settings). Caller frees. */
char *json_pretty(const cJSON *v);

/* cJSON_PrintUnformatted plus a newline; caller frees. */
char *json_print_line(const cJSON *v);

#endif
