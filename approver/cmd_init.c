/*
 * cmd_init.c - `sbx init DIR`: prepares a folder and the approver key.
 * Idempotent: existing files are kept as they are.
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

#include "approver/cmd.h"
#include "approver/sign.h"
#include "common/queue.h"
#include "policy/policy.h"

static const char *
default_name(void)
{
	const char *u = getenv("USER");
	struct passwd *pw;

	if (u && valid_name(u))
		return u;
	pw = getpwuid(getuid());
	return pw && valid_name(pw->pw_name) ? pw->pw_name : "approver";
}

int
cmd_init(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], path[PATH_MAX + 64];
	const char *dir = NULL, *name = NULL, *text;
	struct sbx_err err;
	struct stat st;
	int i, fd, made, sbfd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (argv[i][0] == '-' || dir) {
			fprintf(stderr, "usage: sbx init [--name APPROVER] [DIR]\n");
			return 2;
		} else
			dir = argv[i];
	}
	if (!dir)
		dir = c->dir ? c->dir : ".";
	if (!realpath(dir, folder)) {
		fprintf(stderr, "sbx: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/.sandbox", folder);
	if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sbx: %s exists and is not a directory\n", path);
		return 1;
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "sbx: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (fchmod(sbfd, 0700) < 0)
		fprintf(stderr, "sbx: warning: cannot chmod %s: %s\n", path, strerror(errno));
	for (i = 0; queue_dirs[i]; i++)
		if (mkdirat(sbfd, queue_dirs[i], 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "sbx: cannot create %s/%s: %s\n", path, queue_dirs[i],
			    strerror(errno));
			close(sbfd);
			return 1;
		}
	text = policy_default_text();
	fd = openat(sbfd, "policy.json", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
			fprintf(stderr, "sbx: cannot write %s/policy.json: %s\n", path, strerror(errno));
			close(fd);
			close(sbfd);
			return 1;
		}
		close(fd);
		printf("created %s/policy.json (the default policy)\n", path);
	} else if (errno != EEXIST) {
		fprintf(stderr, "sbx: cannot create %s/policy.json: %s\n", path, strerror(errno));
		close(sbfd);
		return 1;
	}
	close(sbfd);
	printf("prepared %s\n", path);

	made = approver_key_create(c->config, name ? name : default_name(), &err);
	if (made < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (made)
		printf("created approver key %s/approver.key (trusted in %s/approvers/)\n",
		    c->config, c->config);
	printf("next: run `sbxd %s` (it executes approved commands), then `sbx -C %s "
	    "pending` to see requests\n", folder, folder);
	return 0;
}
