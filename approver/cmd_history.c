/*
 * cmd_history.c - `sbx history PATH` and `sbx restore PATH`: the
 * versions of a file that an agent replaced, and bringing one back.
 * A restore keeps the current content first, so it can be undone.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/originals.h"
#include "common/protocol/queue.h"

/* Absolute, resolved form of PATH, also when the file is gone. */
static int
resolve(const char *arg, char *out, size_t outsz)
{
	char dir[PATH_MAX], base[PATH_MAX], rdir[PATH_MAX];

	if (realpath(arg, out))
		return 0;
	snprintf(dir, sizeof(dir), "%s", arg);
	snprintf(base, sizeof(base), "%s", arg);
	if (!realpath(dirname(dir), rdir))
		return -1;
	return xsnprintf(out, outsz, "%s/%s", rdir, basename(base)) < 0 ? -1 : 0;
}

/* The versions of one path, oldest first: indexes into all[]. */
static int
versions(const struct original *all, int n, const char *path, int *idx)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (strcmp(all[i].path, path) == 0)
			idx[k++] = i;
	return k;
}

static int
open_store(const struct sbx_ctx *c, const char *arg, char *folder, char *path, int *sbfd)
{
	struct sbx_err err;
	struct sbx_ctx cc = *c;

	if (resolve(arg, path, PATH_MAX) < 0) {
		fprintf(stderr, "sbx: %s: %s\n", arg, strerror(errno));
		return -1;
	}
	if (!cc.dir) {
		/* Without -C, the folder is the one holding the file. */
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", path);
		cc.dir = dirname(dir);
		if (ctx_folder(&cc, folder, PATH_MAX) < 0)
			return -1;
	} else if (ctx_folder(&cc, folder, PATH_MAX) < 0) {
		return -1;
	}
	if ((*sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int
cmd_history(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], path[PATH_MAX], when[32];
	struct original *all;
	const char *arg = NULL;
	int json = 0, i, n, k, sbfd, *idx;
	cJSON *arr, *o;
	time_t t;

	if ((i = sub_opts_json(c, argc, argv, "usage: sbx history PATH [--json]\n", &json)) >= 0)
		return i;
	if (optind == argc - 1)
		arg = argv[optind];
	if (!arg) {
		fprintf(stderr, "usage: sbx history PATH [--json]\n");
		return 2;
	}
	if (open_store(c, arg, folder, path, &sbfd) < 0)
		return 1;
	n = originals_list(sbfd, &all);
	close(sbfd);
	if (n < 0) {
		fprintf(stderr, "sbx: cannot read %s/.sandbox/queue/originals\n", folder);
		return 1;
	}
	idx = calloc((size_t)n + 1, sizeof(*idx));
	k = idx ? versions(all, n, path, idx) : 0;
	if (json) {
		arr = cJSON_CreateArray();
		for (i = 0; i < k; i++) {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "version", i + 1);
			cJSON_AddNumberToObject(o, "time", (double)all[idx[i]].time_ms / 1000);
			cJSON_AddNumberToObject(o, "size", (double)all[idx[i]].size);
			cJSON_AddStringToObject(o, "hash", all[idx[i]].hash);
			cJSON_AddStringToObject(o, "tool", all[idx[i]].tool);
			if (all[idx[i]].skipped[0])
				cJSON_AddStringToObject(o, "skipped", all[idx[i]].skipped);
			cJSON_AddItemToArray(arr, o);
		}
		char *s = cJSON_Print(arr);
		printf("%s\n", s ? s : "[]");
		free(s);
		cJSON_Delete(arr);
	} else if (k == 0) {
		printf("no replaced versions of %s are kept\n", display_tmp(path));
	} else {
		printf("versions of %s replaced by an agent (oldest first):\n", display_tmp(path));
		for (i = 0; i < k; i++) {
			const struct original *v = &all[idx[i]];

			t = (time_t)(v->time_ms / 1000);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
			if (v->skipped[0])
				printf("  %3d  %s  %-12s not kept: %s\n", i + 1, when, display_tmp(v->tool),
				    display_tmp(v->skipped));
			else
				printf("  %3d  %s  %-12s %8lld bytes  %.12s\n", i + 1, when,
				    display_tmp(v->tool),
				    (long long)v->size, v->hash);
		}
		printf("restore one with: sbx restore %s --version N\n", display_tmp(path));
	}
	free(idx);
	free(all);
	return 0;
}

int
cmd_restore(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX + 32], hex[65];
	unsigned char h[32];
	struct original *all = NULL;
	struct sbx_err err = { "" };
	struct stat st;
	const char *arg = NULL;
	size_t len;
	char *buf = NULL;
	int i, n, k, version = 0, sbfd = -1, fd, *idx = NULL, rc = 1, pick = -1;
	mode_t mode = 0644;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "version", required_argument, NULL, 'v' }, { NULL, 0, NULL, 0 },
	};

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i == 'v')
			version = atoi(optarg);
		else if (i == 'C')
			c->dir = optarg;
		else if (i == 'h')
			return sub_usage("usage: sbx restore PATH [--version N]\n", 1);
		else
			version = -1;
	}
	if (optind == argc - 1)
		arg = argv[optind];
	if (!arg || version < 0) {
		fprintf(stderr, "usage: sbx restore PATH [--version N]\n");
		return 2;
	}
	if (open_store(c, arg, folder, path, &sbfd) < 0)
		return 1;
	if ((n = originals_list(sbfd, &all)) < 0 || !(idx = calloc((size_t)n + 1, sizeof(*idx))))
		goto out;
	k = versions(all, n, path, idx);
	for (pick = -1, i = k - 1; i >= 0 && version == 0; i--)
		if (!all[idx[i]].skipped[0]) {
			pick = idx[i];
			break;
		}
	if (version > 0 && version <= k)
		pick = idx[version - 1];
	if (pick < 0) {
		fprintf(stderr, "sbx: no %s of %s is kept (see `sbx history %s`)\n",
		    version ? "such version" : "version", path, path);
		goto out;
	}
	if (all[pick].skipped[0]) {
		fprintf(stderr, "sbx: version %d of %s was not kept: %s\n", version, path,
		    all[pick].skipped);
		goto out;
	}
	if ((fd = originals_open(sbfd, all[pick].hash)) < 0 ||
	    !(buf = fd_read_all(fd, SBX_ORIGINALS_MAX_FILE, &len))) {
		fprintf(stderr, "sbx: the kept content %s is gone (pruned?)\n", all[pick].hash);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	crypto_generichash(h, sizeof(h), (unsigned char *)buf, len, NULL, 0);
	hex_encode(hex, h, sizeof(h));
	if (strcmp(hex, all[pick].hash) != 0) {
		fprintf(stderr, "sbx: the kept content of %s does not match its hash; not "
		    "restoring\n", path);
		goto out;
	}
	/* The restore itself is recoverable. */
	if (originals_keep(sbfd, path, "sbx restore", "", &err) < 0) {
		fprintf(stderr, "sbx: %s; not restoring\n", err.msg);
		goto out;
	}
	if (lstat(path, &st) == 0)
		mode = st.st_mode & 07777;
	snprintf(tmp, sizeof(tmp), "%s.sbx-restore.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || write_all(fd, buf, len) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, "sbx: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	for (i = 0; i < k && idx[i] != pick; i++)
		;
	printf("restored %s (%zu bytes, version %d of %d); the content it replaced is "
	    "kept too (`sbx history %s`)\n", path, len, i + 1, k, path);
	rc = 0;
out:
	free(buf);
	free(idx);
	free(all);
	if (sbfd >= 0)
		close(sbfd);
	return rc;
}
