/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz/ share: a private
 * temp dir (removed at exit), a project initialised there by the real
 * `sbx init`, stdin fed from the input, stdout thrown away.
 *
 * Every target calls the real entry points; nothing here parses what
 * the code under test parses, except fuzz_cwd_is_ours(), a guard that
 * keeps a fuzzed "cwd" from steering a hook into another folder on this
 * machine (the hooks write only into the folder they find).
 *
 * Each target is one translation unit: these helpers are static.
 */
#ifndef SBX_FUZZ_H
#define SBX_FUZZ_H
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sodium.h>

#include "common/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fuzz_root[PATH_MAX];        /* the temp dir */
static char fuzz_proj[PATH_MAX];        /* fuzz_root/proj, with .sandbox/ once init ran */

static __attribute__((unused)) int
fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path) < 0 ? 0 : 0;
}

static __attribute__((unused)) void
fuzz_cleanup(void)
{
	if (fuzz_root[0])
		nftw(fuzz_root, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static __attribute__((unused)) void
fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz setup: %s: %s\n", what, strerror(errno));
	fuzz_cleanup();
	abort();
}

/* Makes the temp dir and points HOME, TMPDIR and every config dir there. */
static __attribute__((unused)) void
fuzz_tmp(void)
{
	char path[PATH_MAX + 32];
	const char *base = getenv("SBX_FUZZ_TMP");

	if (fuzz_root[0])
		return;
	snprintf(fuzz_root, sizeof(fuzz_root), "%s/sbx-fuzz.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(fuzz_root))
		fuzz_die("mkdtemp");
	/* mkdtemp's name may pass through a symlink (/tmp): resolve it. */
	if (!realpath(fuzz_root, path))
		fuzz_die("realpath");
	snprintf(fuzz_root, sizeof(fuzz_root), "%s", path);
	atexit(fuzz_cleanup);
	snprintf(fuzz_proj, sizeof(fuzz_proj), "%s/proj", fuzz_root);
	if (mkdir(fuzz_proj, 0700) < 0)
		fuzz_die("mkdir proj");
#define FUZZ_ENV(var, sub) do { \
		snprintf(path, sizeof(path), "%s/%s", fuzz_root, sub); \
		mkdir(path, 0700); setenv(var, path, 1); } while (0)
	FUZZ_ENV("HOME", "home");
	FUZZ_ENV("SBX_CONFIG_DIR", "config");
	FUZZ_ENV("CODEX_HOME", "codex-home");
	FUZZ_ENV("GEMINI_CLI_HOME", "gemini-home");
	FUZZ_ENV("TMPDIR", "tmp");
#undef FUZZ_ENV
	unsetenv("XDG_CONFIG_HOME");
	setenv("CLAUDE_PROJECT_DIR", fuzz_proj, 1);
	if (chdir(fuzz_proj) < 0)
		fuzz_die("chdir");
	if (sodium_init() < 0)
		fuzz_die("sodium_init");
}

/* Runs the real `sbx init` on the project ($SBX_BIN, default bin/). */
static __attribute__((unused)) void
fuzz_init_project(void)
{
	const char *bin = getenv("SBX_BIN");
	char sbx[PATH_MAX], real[PATH_MAX];
	pid_t pid;
	int st, fd;

	fuzz_tmp();
	snprintf(sbx, sizeof(sbx), "%s/sbx", bin && *bin ? bin : "bin");
	if (!realpath(sbx, real))
		fuzz_die("bin/sbx (build it, or set SBX_BIN)");
	if ((pid = fork()) < 0)
		fuzz_die("fork");
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		execl(real, "sbx", "init", fuzz_proj, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		errno = EINVAL;
		fuzz_die("sbx init");
	}
}

/* Removes the entries of DIR (relative to the project's .sandbox), not
 * below: what one input queued must not fill the caps for the next. */
static __attribute__((unused)) void
fuzz_empty(const char *dir)
{
	char path[PATH_MAX + 64];
	struct dirent *e;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "%s/.sandbox/%s", fuzz_proj, dir);
	if (!(d = opendir(path)))
		return;
	fd = dirfd(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			(void)unlinkat(fd, e->d_name, 0);
	closedir(d);
}

/* Makes fd 0 read exactly the input (a memfd), fd 1 /dev/null. */
static __attribute__((unused)) void
fuzz_stdio(const uint8_t *data, size_t size)
{
	static int devnull = -1;
	int fd;

	if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		fuzz_die("/dev/null");
	if ((fd = memfd_create("fuzz-stdin", MFD_CLOEXEC)) < 0)
		fuzz_die("memfd_create");
	if (size && write(fd, data, size) != (ssize_t)size)
		fuzz_die("write memfd");
	if (lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, 0) < 0 || dup2(devnull, 1) < 0)
		fuzz_die("dup2");
	close(fd);
}

/*
 * 1 unless the payload names a "cwd" (or Cursor's workspace_roots[0])
 * that resolves below a .sandbox/ folder other than the project's: such
 * an input is skipped, never run, so that the fuzzer cannot make a hook
 * write into a real folder on this machine.
 */
static __attribute__((unused)) int
fuzz_cwd_is_ours(const uint8_t *data, size_t size)
{
	const char *keys[] = { "cwd", "workspace_roots", "dir_path" };
	char real[PATH_MAX], folder[PATH_MAX];
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	const cJSON *v, *in;
	int ok = 1;

	if (!doc)
		return 1;
	in = cJSON_GetObjectItemCaseSensitive(doc, "tool_input");
	for (size_t i = 0; ok && i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = cJSON_GetObjectItemCaseSensitive(doc, keys[i]);
		if (!v && in)
			v = cJSON_GetObjectItemCaseSensitive(in, keys[i]);
		if (cJSON_IsArray(v))
			v = cJSON_GetArrayItem(v, 0);
		if (!cJSON_IsString(v))
			continue;
		/* relative dir_path: joined to a cwd checked above */
		if (v->valuestring[0] != '/')
			ok = strstr(v->valuestring, "..") == NULL;
		else if (realpath(v->valuestring, real) && find_folder(real, folder,
		    sizeof(folder)) == 0)
			ok = strcmp(folder, fuzz_proj) == 0;
	}
	cJSON_Delete(doc);
	return ok;
}

#endif
