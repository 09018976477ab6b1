/*
 * init_gemini.c - Gemini CLI folder trust for `sbx init --gemini`; see
 * init_gemini.h.
 *
 * MUST NOT write a file it could not parse as a JSON object, nor through
 * a symlink; writes by temp file + rename, keeping the file's mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approver/init_gemini.h"
#include "approver/setup.h"
#include "common/base/json.h"

#define MAX_TRUST (1024 * 1024)

int
gemini_trust_path(char *out, size_t outsz, struct sbx_err *err)
{
	const char *p = getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"), *home;
	struct passwd *pw;

	if (p && *p)
		return xsnprintf(out, outsz, "%s", p) < 0 || p[0] != '/' ?
		    (err_set(err, "GEMINI_CLI_TRUSTED_FOLDERS_PATH is not an absolute path"), -1) : 0;
	home = getenv("GEMINI_CLI_HOME");
	if (!home || !*home)
		home = getenv("HOME");
	if (!home || home[0] != '/') {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || home[0] != '/' ||
	    xsnprintf(out, outsz, "%s/.gemini/trustedFolders.json", home) < 0) {
		err_set(err, "cannot tell where Gemini's trustedFolders.json is (set HOME)");
		return -1;
	}
	return 0;
}

/* The file as a JSON object; *root NULL when it does not exist. */
static int
load(const char *path, cJSON **root, mode_t *mode, struct sbx_err *err)
{
	return setup_read_json(path, MAX_TRUST, SBX_READ_REGULAR, root, mode, err);
}

static int
save(const char *path, const cJSON *root, mode_t mode, struct sbx_err *err)
{
	char dir[PATH_MAX], *slash, *p, c;

	if (xsnprintf(dir, sizeof(dir), "%s", path) < 0 || !(slash = strrchr(dir, '/'))) {
		err_set(err, "bad path %s", path);
		return -1;
	}
	*slash = '\0';
	/* GEMINI_CLI_HOME/.gemini: both may be missing */
	for (p = dir + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			err_set(err, "cannot create %s: %s", dir, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			break;
	}
	return setup_write_json(dir, slash + 1, root, mode, err);
}

int
init_gemini_trust(const char *folder)
{
	char path[PATH_MAX];
	struct sbx_err err = { "" };
	const char *v;
	cJSON *root = NULL;
	mode_t mode = 0600;
	int r, created;

	if (gemini_trust_path(path, sizeof(path), &err) < 0 || (r = load(path, &root, &mode, &err)) < 0)
		goto fail;
	created = r == 0;
	if (!root && !(root = cJSON_CreateObject()))
		goto fail;
	v = json_str(root, folder);
	if (v && (!strcmp(v, "TRUST_FOLDER") || !strcmp(v, "TRUST_PARENT"))) {
		printf("%s already trusts this folder\n", path);
		cJSON_Delete(root);
		return 0;
	}
	if (cJSON_GetObjectItemCaseSensitive(root, folder)) {
		err_set(&err, "%s says %s for this folder; sbx will not override your trust "
		    "decision", path, v ? v : "something else");
		goto fail;
	}
	cJSON_AddStringToObject(root, folder, "TRUST_FOLDER");
	if (save(path, root, mode, &err) < 0 ||
	    setup_record_trust(folder, "gemini-trust", path, created, 0, &err) < 0)
		goto fail;
	printf("Gemini CLI trusts this folder (its hooks run only in trusted folders): wrote "
	    "%s\n", path);
	cJSON_Delete(root);
	return 0;
fail:
	cJSON_Delete(root);
	fprintf(stderr, "sbx: %s\nsbx: Gemini CLI runs a project's hooks only in a trusted "
	    "folder, so until then it will NOT run sbx's hook in %s.\n     Add \"%s\": "
	    "\"TRUST_FOLDER\" to %s (or trust the folder in gemini's /permissions).\n",
	    err.msg, folder, folder, path[0] ? path : "~/.gemini/trustedFolders.json");
	return -1;
}

int
gemini_trust_remove(const char *file, const char *folder, int created_file,
    struct sbx_err *err)
{
	cJSON *root = NULL;
	mode_t mode = 0600;
	const char *v;
	int r;

	if ((r = load(file, &root, &mode, err)) <= 0)
		return r;
	v = json_str(root, folder);
	if (!v || strcmp(v, "TRUST_FOLDER") != 0) {
		cJSON_Delete(root);
		return 0;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, folder);
	if (!root->child && created_file) {
		cJSON_Delete(root);
		if (unlink(file) < 0) {
			err_set(err, "cannot remove %s: %s", file, strerror(errno));
			return -1;
		}
		return 1;
	}
	r = save(file, root, mode, err);
	cJSON_Delete(root);
	return r < 0 ? -1 : 1;
}

int
gemini_folder_trusted(const char *file, const char *folder, struct sbx_err *err)
{
	const cJSON *e;
	cJSON *root = NULL;
	mode_t mode;
	size_t n;
	int r, trusted = 0;

	if ((r = load(file, &root, &mode, err)) <= 0)
		return r;
	cJSON_ArrayForEach(e, root) {
		if (!cJSON_IsString(e) || !e->string)
			continue;
		n = strlen(e->string);
		if (!strcmp(e->string, folder) && (!strcmp(e->valuestring, "TRUST_FOLDER") ||
		    !strcmp(e->valuestring, "TRUST_PARENT")))
			trusted = 1;
		if (!strcmp(e->string, folder) && !strcmp(e->valuestring, "DO_NOT_TRUST")) {
			trusted = 0;
			break;
		}
		if (n > 0 && !strncmp(e->string, folder, n) && folder[n] == '/' &&
		    !strcmp(e->valuestring, "TRUST_FOLDER"))
			trusted = 1;
	}
	cJSON_Delete(root);
	return trusted;
}
