/*
 * registry.c - the list of prepared folders; see registry.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/protocol/registry.h"

#define REGISTRY "folders"

static char *
load(const char *config, struct sbx_err *err)
{
	char path[4096];
	size_t len;
	char *text;
	int fd;

	if (xsnprintf(path, sizeof(path), "%s/%s", config, REGISTRY) < 0) {
		err_set(err, "config path too long");
		return NULL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return strdup("");
		err_set(err, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	text = fd_read_all(fd, 1 << 20, &len);
	close(fd);
	if (!text)
		err_set(err, "cannot read %s: %s", path, strerror(errno));
	return text;
}

static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static int
save(const char *config, const char *text, struct sbx_err *err)
{
	int dfd = open(config, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0) {
		err_set(err, "cannot open %s: %s", config, strerror(errno));
		return -1;
	}
	rc = write_atomic(dfd, ".", REGISTRY, text, strlen(text), 0600, 0);
	if (rc < 0)
		err_set(err, "cannot write %s/%s: %s", config, REGISTRY, strerror(errno));
	close(dfd);
	return rc;
}

int
registry_add(const char *config, const char *folder, struct sbx_err *err)
{
	char *text = load(config, err), *next;
	size_t n;
	int rc;

	if (!text)
		return -1;
	if (has_line(text, folder)) {
		free(text);
		return 0;
	}
	n = strlen(text);
	if (!(next = malloc(n + strlen(folder) + 3))) {
		free(text);
		return -1;
	}
	sprintf(next, "%s%s%s\n", text, n && text[n - 1] != '\n' ? "\n" : "", folder);
	rc = save(config, next, err);
	free(text);
	free(next);
	return rc < 0 ? -1 : 1;
}

int
registry_remove(const char *config, const char *folder, struct sbx_err *err)
{
	char *text = load(config, err), *out, *line, *save_ptr = NULL;
	int found = 0, rc;

	if (!text)
		return -1;
	if (!(out = calloc(1, strlen(text) + 1))) {
		free(text);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save_ptr); line; line = strtok_r(NULL, "\n", &save_ptr)) {
		if (strcmp(line, folder) == 0) {
			found = 1;
			continue;
		}
		strcat(out, line);
		strcat(out, "\n");
	}
	rc = found ? save(config, out, err) : 0;
	free(text);
	free(out);
	return rc < 0 ? -1 : found;
}

int
registry_count(const char *config, struct sbx_err *err)
{
	char *text = load(config, err), *line, *save_ptr = NULL;
	int n = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save_ptr); line;
	    line = strtok_r(NULL, "\n", &save_ptr))
		n += line[0] == '/';
	free(text);
	return n;
}

int
registry_list(const char *config, char (*out)[4096], int max, struct sbx_err *err)
{
	char *text = load(config, err), *line, *save_ptr = NULL;
	int n = 0;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save_ptr); line && n < max;
	    line = strtok_r(NULL, "\n", &save_ptr)) {
		if (line[0] != '/')
			continue;
		if (xsnprintf(out[n], sizeof(out[n]), "%s", line) >= 0)
			n++;
	}
	free(text);
	return n;
}
