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
registry_read(const char *config, char (**out)[4096], struct sbx_err *err)
{
	char *text = load(config, err), *line, *save_ptr = NULL, (*list)[4096] = NULL;
	int n = 0, max = 0, lineno = 0;
	const char *p;

	*out = NULL;
	if (!text)
		return -1;
	for (p = text; *p; p++)
		max += *p == '\n';
	max++;
	if (!(list = calloc((size_t)max, sizeof(*list)))) {
		err_set(err, "out of memory reading %s/%s", config, REGISTRY);
		goto fail;
	}
	for (line = strtok_r(text, "\n", &save_ptr); line; line = strtok_r(NULL, "\n", &save_ptr)) {
		lineno++;
		if (line[0] != '/') {
			err_set(err, "%s/%s line %d is not an absolute path; fix or remove it "
			    "(`sbx remove DIR`, or edit the file)", config, REGISTRY, lineno);
			goto fail;
		}
		if (xsnprintf(list[n], sizeof(list[n]), "%s", line) < 0) {
			err_set(err, "%s/%s line %d is too long for a path (%zu bytes)", config,
			    REGISTRY, lineno, strlen(line));
			goto fail;
		}
		n++;
	}
	free(text);
	if (n == 0) {
		free(list);
		list = NULL;
	}
	*out = list;
	return n;
fail:
	free(text);
	free(list);
	return -1;
}
