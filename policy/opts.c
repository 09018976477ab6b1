/*
 * opts.c - option values, in one place: which options of which program
 * take a value, and what that value is (a file written or read, a tree
 * written, code that runs). One scanner reads every form of a command's
 * options against this table: "-o FILE", "-oFILE", "-uoFILE" (a cluster),
 * "-o=FILE", "--output FILE", "--output=FILE", an unambiguous prefix
 * "--out=FILE" (getopt_long accepts it), and single-dash long options
 * ("-toolexec=x", "-fplugin=x.so").
 *
 * Rules:
 * - The tables are data: a program's entry in progs[] (progs.c) names its
 *   option set here (enum an_opts); an entry of a set names optionally
 *   the subcommand it applies to, the option, and the kind of its value.
 *   A family of programs (cc, gcc, clang, c++, g++) shares one set.
 * - A value that is not known exactly (a variable, a substitution) is
 *   judged like any such word: a write or a read through it escalates.
 * - Findings only add: handlers of the program's class still run.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct optdef o_bat[] = {
	{ NULL, "--pager", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_cargo[] = {
	{ NULL, "--artifact-dir", OK_WTREE, 0 },
	{ NULL, "--config", OK_CODE, 0 },
	{ NULL, "--out-dir", OK_WTREE, 0 },
	{ NULL, "--target-dir", OK_WTREE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_cc[] = {
	{ NULL, "-B", OK_CODE, 0 },
	{ NULL, "-MF", OK_WRITE, 0 },
	{ NULL, "-Xclang", OK_CODE, 0 },
	{ NULL, "-fpass-plugin", OK_CODE, 0 },
	{ NULL, "-fplugin", OK_CODE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, "-specs", OK_CODE, 0 },
	{ NULL, "--specs", OK_CODE, 0 },
	{ NULL, "-wrapper", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_clang_format[] = {
	{ NULL, "--files", OK_NAMES, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* curl: the effects of values (an_opts_scan), and what its handler
 * (net.c) reads: the download, the data and files sent. */
static const struct optdef o_curl[] = {
	{ NULL, "--alt-svc", OK_WRITE, 0 },
	{ NULL, "--cert", OK_READ, 0 },
	{ NULL, "--config", OK_CODE, NET_CONFIG },
	{ NULL, "--cookie-jar", OK_WRITE, 0 },
	{ NULL, "--dump-header", OK_WRITE, 0 },
	{ NULL, "--etag-save", OK_WRITE, 0 },
	{ NULL, "--hsts", OK_WRITE, 0 },
	{ NULL, "--key", OK_READ, 0 },
	{ NULL, "--libcurl", OK_WRITE, 0 },
	{ NULL, "--netrc-file", OK_READ, 0 },
	{ NULL, "--output-dir", OK_WTREE, 0 },
	{ NULL, "--stderr", OK_WRITE, 0 },
	{ NULL, "--trace", OK_WRITE, 0 },
	{ NULL, "--trace-ascii", OK_WRITE, 0 },
	{ NULL, "-D", OK_WRITE, 0 },
	{ NULL, "-K", OK_CODE, NET_CONFIG },
	{ NULL, "-c", OK_WRITE, 0 },
	{ NULL, "--output", OK_VAL, NET_OUT },
	{ NULL, "-o", OK_VAL, NET_OUT },
	{ NULL, "--remote-name", OK_FLAG, NET_REMOTE },
	{ NULL, "--remote-name-all", OK_FLAG, NET_REMOTE },
	{ NULL, "-O", OK_FLAG, NET_REMOTE },
	{ NULL, "--data", OK_VAL, NET_DATA },
	{ NULL, "--data-ascii", OK_VAL, NET_DATA },
	{ NULL, "--data-binary", OK_VAL, NET_DATA },
	{ NULL, "--data-raw", OK_VAL, NET_DATA },
	{ NULL, "--data-urlencode", OK_VAL, NET_DATA },
	{ NULL, "-d", OK_VAL, NET_DATA },
	{ NULL, "--form", OK_VAL, NET_FORM },
	{ NULL, "--form-string", OK_VAL, NET_FORM },
	{ NULL, "-F", OK_VAL, NET_FORM },
	{ NULL, "--upload-file", OK_VAL, NET_UPLOAD },
	{ NULL, "-T", OK_VAL, NET_UPLOAD },
	{ NULL, "--header", OK_VAL, 0 },
	{ NULL, "--request", OK_VAL, 0 },
	{ NULL, "--url", OK_VAL, 0 },
	{ NULL, "--user", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};


/* date -f FILE prints each line it cannot parse: FILE's content */
static const struct optdef o_date[] = {
	{ NULL, "--file", OK_READ, 0 },
	{ NULL, "-f", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_diff[] = {
	{ NULL, "--exclude-from", OK_READ, 0 },
	{ NULL, "--from-file", OK_READ, 0 },
	{ NULL, "--to-file", OK_READ, 0 },
	{ NULL, "-X", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* du and wc read the names of their files from a file, and wc prints
 * each line it cannot open: the file's content */
static const struct optdef o_du[] = {
	{ NULL, "--all", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-a", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--exclude-from", OK_READ, 0 },
	{ NULL, "--files0-from", OK_READ, 0 },
	{ NULL, "-X", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_eslint[] = {
	{ NULL, "--output-file", OK_WRITE, 0 },
	{ NULL, "--resolve-plugins-relative-to", OK_CODE, 0 },
	{ NULL, "--rulesdir", OK_CODE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, "--config", OK_INPROJ, 0 },
	{ NULL, "-c", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* fd -u is --unrestricted: hidden names, ignore files off */
static const struct optdef o_fd[] = {
	{ NULL, "--hidden", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--unrestricted", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-H", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-u", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--base-directory", OK_VAL, WALK_ROOT },
	{ NULL, "--search-path", OK_VAL, WALK_ROOT },
	{ NULL, "--batch-size", OK_VAL, 0 },
	{ NULL, "--changed-before", OK_VAL, 0 },
	{ NULL, "--changed-within", OK_VAL, 0 },
	{ NULL, "--color", OK_VAL, 0 },
	{ NULL, "--exclude", OK_VAL, 0 },
	{ NULL, "--extension", OK_VAL, 0 },
	{ NULL, "--format", OK_VAL, 0 },
	{ NULL, "--ignore-file", OK_READ, 0 },
	{ NULL, "--max-depth", OK_VAL, 0 },
	{ NULL, "--max-results", OK_VAL, 0 },
	{ NULL, "--min-depth", OK_VAL, 0 },
	{ NULL, "--owner", OK_VAL, 0 },
	{ NULL, "--path-separator", OK_VAL, 0 },
	{ NULL, "--size", OK_VAL, 0 },
	{ NULL, "--threads", OK_VAL, 0 },
	{ NULL, "--type", OK_VAL, 0 },
	{ NULL, "--exec", OK_CODE, 0 },
	{ NULL, "--exec-batch", OK_CODE, 0 },
	{ NULL, "-X", OK_CODE, 0 },
	{ NULL, "-x", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_file[] = {
	{ NULL, "--files-from", OK_READ, 0 },
	{ NULL, "--magic-file", OK_READ, 0 },
	{ NULL, "-f", OK_READ, 0 },
	{ NULL, "-m", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_go[] = {
	{ NULL, "-exec", OK_CODE, 0 },
	{ NULL, "-modfile", OK_READ, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, "-overlay", OK_READ, 0 },
	{ NULL, "-pkgdir", OK_WTREE, 0 },
	{ NULL, "-toolexec", OK_CODE, 0 },
	{ "env", "-u", OK_ESC, 0 },
	{ "env", "-w", OK_ESC, 0 },
	{ NULL, "-vettool", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_gradle[] = {
	{ NULL, "--gradle-user-home", OK_WTREE, 0 },
	{ NULL, "--init-script", OK_CODE, 0 },
	{ NULL, "-I", OK_CODE, 0 },
	{ NULL, "-g", OK_WTREE, 0 },
	{ NULL, "--build-file", OK_INPROJ, 0 },
	{ NULL, "--settings-file", OK_INPROJ, 0 },
	{ NULL, "-b", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* grep, egrep, fgrep: pattern files (and grep's handler, files.c, reads
 * a cluster's "f" as one even where getopt takes it for a value) */
static const struct optdef o_grep[] = {
	{ NULL, "--dereference-recursive", OK_FLAG, GREP_FOLLOW },
	{ NULL, "--directories", OK_VAL, GREP_DIRS },
	{ NULL, "--recursive", OK_FLAG, GREP_REC },
	{ NULL, "-R", OK_FLAG, GREP_FOLLOW },
	{ NULL, "-d", OK_VAL, GREP_DIRS },
	{ NULL, "-r", OK_FLAG, GREP_REC },
	{ NULL, "--exclude-dir", OK_VAL, GREP_EXCLDIR },
	{ NULL, "--exclude-from", OK_READ, 0 },
	{ NULL, "--file", OK_READ, WALK_PAT },
	{ NULL, "--include", OK_VAL, GREP_INCLUDE },
	{ NULL, "-f", OK_READ, WALK_PAT },
	{ NULL, "--regexp", OK_VAL, WALK_PAT },
	{ NULL, "-e", OK_VAL, WALK_PAT },
	/* the others that take a value: the next word is no operand */
	{ NULL, "--after-context", OK_VAL, 0 },
	{ NULL, "--before-context", OK_VAL, 0 },
	{ NULL, "--binary-files", OK_VAL, 0 },
	{ NULL, "--color", OK_OPTVAL, 0 },
	{ NULL, "--colour", OK_OPTVAL, 0 },
	{ NULL, "--context", OK_VAL, 0 },
	{ NULL, "--devices", OK_VAL, 0 },
	{ NULL, "--exclude", OK_VAL, 0 },
	{ NULL, "--group-separator", OK_VAL, 0 },
	{ NULL, "--label", OK_VAL, 0 },
	{ NULL, "--max-count", OK_VAL, 0 },
	{ NULL, "-D", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_iconv[] = {
	{ NULL, "--output", OK_WRITE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_jest[] = {
	{ NULL, "--config", OK_INPROJ, 0 },
	{ NULL, "-c", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_jq[] = {
	{ NULL, "--from-file", OK_READ, 0 },
	{ NULL, "--rawfile", OK_READ2, 0 },
	{ NULL, "--slurpfile", OK_READ2, 0 },
	{ NULL, "-f", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_less[] = {
	{ NULL, "--LOG-FILE", OK_WRITE, 0 },
	{ NULL, "--lesskey-content", OK_CODE, 0 },
	{ NULL, "--lesskey-file", OK_CODE, 0 },
	{ NULL, "--lesskey-src", OK_CODE, 0 },
	{ NULL, "--log-file", OK_WRITE, 0 },
	{ NULL, "-O", OK_WRITE, 0 },
	{ NULL, "-k", OK_CODE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* make: -f/--file/--makefile run a makefile (code: from the project
 * only), --eval and -E run text */
static const struct optdef o_make[] = {
	{ NULL, "--eval", OK_CODE, 0 },
	{ NULL, "--file", OK_INPROJ, 0 },
	{ NULL, "--makefile", OK_INPROJ, 0 },
	{ NULL, "-E", OK_CODE, 0 },
	{ NULL, "-f", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_man[] = {
	{ NULL, "--browser", OK_CODE, 0 },
	{ NULL, "--config-file", OK_CODE, 0 },
	{ NULL, "--html", OK_CODE, 0 },
	{ NULL, "--local-file", OK_READ, 0 },
	{ NULL, "--pager", OK_CODE, 0 },
	{ NULL, "-C", OK_CODE, 0 },
	{ NULL, "-H", OK_CODE, 0 },
	{ NULL, "-P", OK_CODE, 0 },
	{ NULL, "-l", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_mvn[] = {
	{ NULL, "--global-settings", OK_READ, 0 },
	{ NULL, "--settings", OK_READ, 0 },
	{ NULL, "--toolchains", OK_READ, 0 },
	{ NULL, "-gs", OK_READ, 0 },
	{ NULL, "-s", OK_READ, 0 },
	{ NULL, "-t", OK_READ, 0 },
	{ NULL, "--file", OK_INPROJ, 0 },
	{ NULL, "-f", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_mypy[] = {
	{ NULL, "--config-file", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_node[] = {
	{ NULL, "--cpu-prof-dir", OK_WTREE, 0 },
	{ NULL, "--diagnostic-dir", OK_WTREE, 0 },
	{ NULL, "--env-file", OK_READ, 0 },
	{ NULL, "--env-file-if-exists", OK_READ, 0 },
	{ NULL, "--experimental-loader", OK_CODE, 0 },
	{ NULL, "--heap-prof-dir", OK_WTREE, 0 },
	{ NULL, "--loader", OK_CODE, 0 },
	{ NULL, "--openssl-config", OK_CODE, 0 },
	{ NULL, "--redirect-warnings", OK_WRITE, 0 },
	{ NULL, "--report-directory", OK_WTREE, 0 },
	{ NULL, "--test-reporter-destination", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_npm[] = {
	{ NULL, "--globalconfig", OK_CODE, 0 },
	{ NULL, "--node-options", OK_CODE, 0 },
	{ NULL, "--script-shell", OK_CODE, 0 },
	{ NULL, "--userconfig", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_prettier[] = {
	{ NULL, "--plugin", OK_CODE, 0 },
	{ NULL, "--config", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_pytest[] = {
	{ NULL, "--basetemp", OK_WTREE, 0 },
	{ NULL, "--junit-xml", OK_WRITE, 0 },
	{ NULL, "--junitxml", OK_WRITE, 0 },
	{ NULL, "--log-file", OK_WRITE, 0 },
	{ NULL, "--report-log", OK_WRITE, 0 },
	{ NULL, "--result-log", OK_WRITE, 0 },
	{ NULL, "--resultlog", OK_WRITE, 0 },
	{ NULL, "--config-file", OK_INPROJ, 0 },
	{ NULL, "-c", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* python: -c CODE and -m MODULE end its options (code.c); -W and -X
 * take a value (-Wignore, -X dev), which is no inline code */
static const struct optdef o_python[] = {
	{ NULL, "--check-hash-based-pycs", OK_VAL, 0 },
	{ NULL, "-W", OK_VAL, 0 },
	{ NULL, "-X", OK_VAL, 0 },
	{ NULL, "-c", OK_VAL, PY_CODE },
	{ NULL, "-m", OK_VAL, PY_MODULE },
	{ NULL, NULL, OK_VAL, 0 },
};

/* ls: what it lists (files.c, lister_secret), and the long options that
 * take a value (the next word is no operand) */
static const struct optdef o_ls[] = {
	{ NULL, "--all", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--almost-all", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-A", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-a", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--recursive", OK_FLAG, WALK_DEEP },
	{ NULL, "-R", OK_FLAG, WALK_DEEP },
	{ NULL, "--directory", OK_FLAG, WALK_FLAT },
	{ NULL, "-d", OK_FLAG, WALK_FLAT },
	{ NULL, "--block-size", OK_VAL, 0 },
	{ NULL, "--color", OK_OPTVAL, 0 },
	{ NULL, "--format", OK_VAL, 0 },
	{ NULL, "--hide", OK_VAL, 0 },
	{ NULL, "--hyperlink", OK_OPTVAL, 0 },
	{ NULL, "--ignore", OK_VAL, 0 },
	{ NULL, "--indicator-style", OK_VAL, 0 },
	{ NULL, "--quoting-style", OK_VAL, 0 },
	{ NULL, "--sort", OK_VAL, 0 },
	{ NULL, "--tabsize", OK_VAL, 0 },
	{ NULL, "--time", OK_VAL, 0 },
	{ NULL, "--time-style", OK_VAL, 0 },
	{ NULL, "--width", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* rg: pattern files, --pre, and how it walks (files.c: rg_tree_how):
 * hidden names, ignore files, links, globs and types */
static const struct optdef o_rg[] = {
	{ NULL, "--hidden", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-.", OK_FLAG, WALK_HIDDEN },
	{ NULL, "--unrestricted", OK_FLAG, WALK_U },
	{ NULL, "-u", OK_FLAG, WALK_U },
	{ NULL, "--no-ignore", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-dot", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-exclude", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-files", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-global", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-parent", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--no-ignore-vcs", OK_FLAG, WALK_NOIGNORE },
	{ NULL, "--follow", OK_FLAG, WALK_FOLLOW },
	{ NULL, "-L", OK_FLAG, WALK_FOLLOW },
	{ NULL, "--files", OK_FLAG, WALK_NAMES },
	{ NULL, "--glob", OK_VAL, WALK_GLOB },
	{ NULL, "-g", OK_VAL, WALK_GLOB },
	{ NULL, "--iglob", OK_VAL, WALK_IGLOB },
	{ NULL, "--glob-case-insensitive", OK_FLAG, WALK_GLOBCASE },
	{ NULL, "--type", OK_VAL, WALK_TYPE },
	{ NULL, "-t", OK_VAL, WALK_TYPE },
	{ NULL, "--type-not", OK_VAL, 0 },
	{ NULL, "-T", OK_VAL, 0 },
	{ NULL, "--type-add", OK_VAL, WALK_TYPEADD },
	{ NULL, "--type-clear", OK_VAL, WALK_TYPEADD },
	{ NULL, "--file", OK_READ, WALK_PAT },
	{ NULL, "-f", OK_READ, WALK_PAT },
	{ NULL, "--regexp", OK_VAL, WALK_PAT },
	{ NULL, "-e", OK_VAL, WALK_PAT },
	/* the others that take a value (rg refuses an option it does not
	 * know, and abbreviations): the next word is no operand */
	{ NULL, "--after-context", OK_VAL, 0 },
	{ NULL, "--before-context", OK_VAL, 0 },
	{ NULL, "--color", OK_VAL, 0 },
	{ NULL, "--colors", OK_VAL, 0 },
	{ NULL, "--context", OK_VAL, 0 },
	{ NULL, "--context-separator", OK_VAL, 0 },
	{ NULL, "--dfa-size-limit", OK_VAL, 0 },
	{ NULL, "--encoding", OK_VAL, 0 },
	{ NULL, "--engine", OK_VAL, 0 },
	{ NULL, "--field-context-separator", OK_VAL, 0 },
	{ NULL, "--field-match-separator", OK_VAL, 0 },
	{ NULL, "--generate", OK_VAL, 0 },
	{ NULL, "--hostname-bin", OK_CODE, 0 },
	{ NULL, "--hyperlink-format", OK_VAL, 0 },
	{ NULL, "--max-columns", OK_VAL, 0 },
	{ NULL, "--max-count", OK_VAL, 0 },
	{ NULL, "--max-depth", OK_VAL, 0 },
	{ NULL, "--maxdepth", OK_VAL, 0 },
	{ NULL, "--max-filesize", OK_VAL, 0 },
	{ NULL, "--path-separator", OK_VAL, 0 },
	{ NULL, "--pre-glob", OK_VAL, 0 },
	{ NULL, "--regex-size-limit", OK_VAL, 0 },
	{ NULL, "--replace", OK_VAL, 0 },
	{ NULL, "--sort", OK_VAL, 0 },
	{ NULL, "--sortr", OK_VAL, 0 },
	{ NULL, "--threads", OK_VAL, 0 },
	{ NULL, "--ignore-file", OK_READ, 0 },
	{ NULL, "--pre", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_rsync[] = {
	{ NULL, "--exclude-from", OK_READ, 0 },
	{ NULL, "--files-from", OK_NAMES, 0 },
	{ NULL, "--include-from", OK_READ, 0 },
	{ NULL, "--rsh", OK_CODE, 0 },
	{ NULL, "--rsync-path", OK_CODE, 0 },
	{ NULL, "-e", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* rustc: -o and --out-dir are written; -C (codegen: linker=, link-arg=)
 * and -Z run other programs or change what runs */
static const struct optdef o_rustc[] = {
	{ NULL, "--codegen", OK_CODE, 0 },
	{ NULL, "--out-dir", OK_WTREE, 0 },
	{ NULL, "-C", OK_CODE, 0 },
	{ NULL, "-Z", OK_CODE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_ruff[] = {
	{ NULL, "--cache-dir", OK_WTREE, 0 },
	{ NULL, "--output-file", OK_WRITE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_sort[] = {
	{ NULL, "--compress-program", OK_CODE, 0 },
	{ NULL, "--files0-from", OK_NAMES, 0 },
	{ NULL, "--output", OK_WRITE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, "--temporary-directory", OK_WTREE, 0 },
	{ NULL, "-T", OK_WTREE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* tar: the effects of values (an_opts_scan), and what its handler
 * (archive.c) reads: modes, the archive, the directory, flags. */
static const struct optdef o_tar[] = {
	{ NULL, "--checkpoint-action", OK_CODE, 0 },
	{ NULL, "--exclude-from", OK_READ, 0 },
	{ NULL, "--files-from", OK_NAMES, 0 },
	{ NULL, "--index-file", OK_WRITE, 0 },
	{ NULL, "--info-script", OK_CODE, 0 },
	{ NULL, "--listed-incremental", OK_WRITE, 0 },
	{ NULL, "--new-volume-script", OK_CODE, 0 },
	{ NULL, "--rmt-command", OK_CODE, 0 },
	{ NULL, "--rsh-command", OK_CODE, 0 },
	{ NULL, "--to-command", OK_CODE, 0 },
	{ NULL, "--use-compress-program", OK_CODE, 0 },
	{ NULL, "-F", OK_CODE, 0 },
	{ NULL, "-I", OK_CODE, 0 },
	{ NULL, "-T", OK_NAMES, 0 },
	{ NULL, "-X", OK_READ, 0 },
	{ NULL, "-g", OK_WRITE, 0 },
	{ NULL, "--volno-file", OK_WRITE, 0 },
	{ NULL, "--remove-files", OK_FLAG, TAR_REMOVE },
	{ NULL, "--dereference", OK_FLAG, TAR_DEREF },
	{ NULL, "-h", OK_FLAG, TAR_DEREF },
	{ NULL, "--file", OK_VAL, TAR_FILE },
	{ NULL, "--directory", OK_VAL, TAR_DIR },
	{ NULL, "-f", OK_VAL, TAR_FILE },
	{ NULL, "-C", OK_VAL, TAR_DIR },
	{ NULL, "-b", OK_VAL, 0 },
	{ NULL, "-L", OK_VAL, 0 },
	{ NULL, "-N", OK_VAL, 0 },
	{ NULL, "-V", OK_VAL, 0 },
	{ NULL, "-K", OK_VAL, 0 },
	{ NULL, "-H", OK_VAL, 0 },
	{ NULL, "--extract", OK_FLAG, 'x' },
	{ NULL, "--get", OK_FLAG, 'x' },
	{ NULL, "--create", OK_FLAG, 'c' },
	{ NULL, "--list", OK_FLAG, 't' },
	{ NULL, "--append", OK_FLAG, 'r' },
	{ NULL, "--update", OK_FLAG, 'u' },
	{ NULL, "--diff", OK_FLAG, 'd' },
	{ NULL, "--compare", OK_FLAG, 'd' },
	{ NULL, "--delete", OK_FLAG, 'D' },
	{ NULL, "--catenate", OK_FLAG, 'A' },
	{ NULL, "--concatenate", OK_FLAG, 'A' },
	{ NULL, "--absolute-names", OK_FLAG, TAR_ABS },
	{ NULL, "--to-stdout", OK_FLAG, TAR_STDOUT },
	{ NULL, "--force-local", OK_FLAG, TAR_LOCAL },
	{ NULL, "-x", OK_FLAG, 'x' },
	{ NULL, "-t", OK_FLAG, 't' },
	{ NULL, "-c", OK_FLAG, 'c' },
	{ NULL, "-r", OK_FLAG, 'r' },
	{ NULL, "-u", OK_FLAG, 'u' },
	{ NULL, "-d", OK_FLAG, 'd' },
	{ NULL, "-A", OK_FLAG, 'A' },
	{ NULL, "-P", OK_FLAG, TAR_ABS },
	{ NULL, "-O", OK_FLAG, TAR_STDOUT },
	{ NULL, NULL, OK_VAL, 0 },
};

/* ssh and scp: keys and configuration files read */
static const struct optdef o_ssh[] = {
	{ NULL, "-F", OK_VAL, NET_READ },
	{ NULL, "-i", OK_VAL, NET_READ },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_time[] = {
	{ NULL, "--output", OK_WRITE, 0 },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_tree[] = {
	{ NULL, "-a", OK_FLAG, WALK_HIDDEN },
	{ NULL, "-o", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_tsc[] = {
	{ NULL, "--declarationDir", OK_WTREE, 0 },
	{ NULL, "--generateTrace", OK_WTREE, 0 },
	{ NULL, "--outDir", OK_WTREE, 0 },
	{ NULL, "--outFile", OK_WRITE, 0 },
	{ NULL, "--tsBuildInfoFile", OK_WRITE, 0 },
	{ NULL, "-declarationDir", OK_WTREE, 0 },
	{ NULL, "-outDir", OK_WTREE, 0 },
	{ NULL, "-outFile", OK_WRITE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* unzip: -d DIR (attached, in a cluster, or the next word; also after
 * the archive and after -x NAMES), modes that only list or print, and
 * -: (names with ".."). Other letters take no value. */
static const struct optdef o_unzip[] = {
	{ NULL, "-d", OK_VAL, UNZIP_DIR },
	{ NULL, "-P", OK_VAL, 0 },
	{ NULL, "-:", OK_FLAG, UNZIP_DOTDOT },
	{ NULL, "-l", OK_FLAG, UNZIP_LIST },
	{ NULL, "-v", OK_FLAG, UNZIP_LIST },
	{ NULL, "-t", OK_FLAG, UNZIP_LIST },
	{ NULL, "-z", OK_FLAG, UNZIP_LIST },
	{ NULL, "-Z", OK_FLAG, UNZIP_LIST },
	{ NULL, "-p", OK_FLAG, UNZIP_LIST },
	{ NULL, "-c", OK_FLAG, UNZIP_LIST },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_vitest[] = {
	{ NULL, "--config", OK_INPROJ, 0 },
	{ NULL, "-c", OK_INPROJ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

static const struct optdef o_wc[] = {
	{ NULL, "--files0-from", OK_READ, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* wget: as curl's */
static const struct optdef o_wget[] = {
	{ NULL, "--append-output", OK_WRITE, NET_LOG },
	{ NULL, "--body-file", OK_READ, NET_READ },
	{ NULL, "--certificate", OK_READ, 0 },
	{ NULL, "--config", OK_CODE, NET_CONFIG },
	{ NULL, "--directory-prefix", OK_WTREE, NET_DIR },
	{ NULL, "--execute", OK_CODE, 0 },
	{ NULL, "--hsts-file", OK_WRITE, 0 },
	{ NULL, "--input-file", OK_READ, 0 },
	{ NULL, "--load-cookies", OK_READ, 0 },
	{ NULL, "--output-file", OK_WRITE, NET_LOG },
	{ NULL, "--post-file", OK_READ, NET_READ },
	{ NULL, "--private-key", OK_READ, 0 },
	{ NULL, "--rejected-log", OK_WRITE, 0 },
	{ NULL, "--save-cookies", OK_WRITE, 0 },
	{ NULL, "--use-askpass", OK_CODE, 0 },
	{ NULL, "--warc-file", OK_WRITE, 0 },
	{ NULL, "-P", OK_WTREE, NET_DIR },
	{ NULL, "-a", OK_WRITE, NET_LOG },
	{ NULL, "-e", OK_CODE, 0 },
	{ NULL, "-i", OK_READ, 0 },
	{ NULL, "-o", OK_WRITE, NET_LOG },
	{ NULL, "--output-document", OK_VAL, NET_OUT },
	{ NULL, "-O", OK_VAL, NET_OUT },
	{ NULL, "--header", OK_VAL, 0 },
	{ NULL, "--user", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};


static const struct optdef o_zip[] = {
	{ NULL, "--output-file", OK_WRITE, 0 },
	{ NULL, "--unzip-command", OK_CODE, 0 },
	{ NULL, "-O", OK_WRITE, 0 },
	{ NULL, "-TT", OK_CODE, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};

/* Indexed by enum an_opts (analyse.h), which progs[] names. */
static const struct optset optsets[OPTS_N] = {
	[OPTS_NONE] = { 1, 0, NULL },
	[OPTS_BAT] = { 1, 0, o_bat },
	[OPTS_CARGO] = { 1, 0, o_cargo },
	[OPTS_CC] = { 0, 0, o_cc },
	[OPTS_CLANG_FORMAT] = { 1, 0, o_clang_format },
	[OPTS_CURL] = { 1, 0, o_curl },
	[OPTS_DATE] = { 1, 0, o_date },
	[OPTS_DIFF] = { 1, 0, o_diff },
	[OPTS_DU] = { 1, 0, o_du },
	[OPTS_ESLINT] = { 1, 0, o_eslint },
	[OPTS_FD] = { 1, 0, o_fd },
	[OPTS_FILE] = { 1, 0, o_file },
	[OPTS_GO] = { 0, 0, o_go },
	[OPTS_GRADLE] = { 1, 0, o_gradle },
	[OPTS_GREP] = { 1, 0, o_grep },
	[OPTS_ICONV] = { 1, 0, o_iconv },
	[OPTS_JEST] = { 1, 0, o_jest },
	[OPTS_JQ] = { 1, 0, o_jq },
	[OPTS_LESS] = { 1, 0, o_less },
	[OPTS_LS] = { 1, 0, o_ls },
	[OPTS_MAKE] = { 1, 0, o_make },
	[OPTS_MAN] = { 1, 0, o_man },
	[OPTS_MVN] = { 1, 0, o_mvn },
	[OPTS_MYPY] = { 1, 0, o_mypy },
	[OPTS_NODE] = { 0, 0, o_node },
	[OPTS_NPM] = { 1, 0, o_npm },
	[OPTS_PRETTIER] = { 1, 0, o_prettier },
	[OPTS_PYTEST] = { 1, 0, o_pytest },
	[OPTS_PYTHON] = { 1, 0, o_python },
	[OPTS_RG] = { 1, 0, o_rg },
	[OPTS_RSYNC] = { 1, 0, o_rsync },
	[OPTS_RUSTC] = { 0, 0, o_rustc },
	[OPTS_RUFF] = { 1, 0, o_ruff },
	[OPTS_SORT] = { 1, 0, o_sort },
	[OPTS_SSH] = { 1, 0, o_ssh },
	[OPTS_TAR] = { 1, 0, o_tar },
	[OPTS_TIME] = { 1, 0, o_time },
	[OPTS_TREE] = { 1, 0, o_tree },
	[OPTS_TSC] = { 0, 0, o_tsc },
	[OPTS_UNZIP] = { 1, 0, o_unzip },
	[OPTS_VITEST] = { 1, 0, o_vitest },
	[OPTS_WC] = { 1, 0, o_wc },
	[OPTS_WGET] = { 1, 0, o_wget },
	[OPTS_ZIP] = { 1, 0, o_zip },
};


/* A word for an attached value: the tail of w from off. */
static struct sh_word
tail_word(const struct sh_word *w, size_t off)
{
	struct sh_word t = *w;

	t.s = w->s + off;
	t.len = w->len - off;
	t.flags &= ~(unsigned)SH_W_TILDE;
	if (t.s[0] == '~')
		t.flags |= SH_W_TILDE;
	return t;
}

static void
apply(struct ev *ev, struct cmdv *v, const struct optdef *d,
    struct sh_word *val, struct sh_word *val2, const char *shown)
{
	const char *what = v->w[0].s;

	switch (d->kind) {
	case OK_VAL:
	case OK_FLAG:
	case OK_OPTVAL:
		break;
	case OK_ESC:
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs an external program or changes the user's "
		    "configuration", what, shown);
		break;
	case OK_INPROJ:
		{
			char path[SBX_PATH_MAX], res[SBX_PATH_MAX];

			/* "-": the configuration comes from stdin */
			if (val != NULL && !(an_lit(val) && strcmp(val->s,
			    "-") == 0) && an_word_path(ev, val, path,
			    sizeof(path)) == 1 && (path[0] == '/' ||
			    path[0] == '~' || ev->cwd_known) &&
			    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res,
			    sizeof(res)) == 0 && ev->p->folder != NULL &&
			    path_within(res, ev->p->folder))
				break;
		}
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs configuration from outside the project", what,
		    shown);
		break;
	case OK_CODE:
		ev_factor(ev, F_CODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "%s %s runs a command or code the policy cannot read", what,
		    shown);
		break;
	case OK_WRITE:
	case OK_WTREE:
		if (val == NULL) {
			trig_write(ev, NULL, what);
			break;
		}
		if (d->kind == OK_WTREE)
			an_write_tree_word(ev, v, val);
		else
			an_write_word(ev, v, val);
		/* -o=FILE: getopt reads "=FILE", Go's flags read "FILE" */
		if (val->s[0] == '=' && val->s[1] != '\0') {
			struct sh_word t = tail_word(val, 1);

			an_write_word(ev, v, &t);
		}
		break;
	case OK_READ:
	case OK_READ2:
	case OK_NAMES:
		if (d->kind == OK_NAMES)
			an_names_from(ev, what, shown);
		if (d->kind == OK_READ2)
			val = val2;
		if (val == NULL) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "read", "builtin: option",
			    "%s %s reads a file the policy cannot see", what, shown);
			break;
		}
		an_op_read(ev, v, val, 0);
		if (val->s[0] == '=' && val->s[1] != '\0') {
			struct sh_word t = tail_word(val, 1);

			an_op_read(ev, v, &t, 0);
		}
		break;
	}
}


void
an_names_from(struct ev *ev, const char *what, const char *opt)
{
	ev_factor(ev, F_UNKNOWN);
	ev_note(ev, POLICY_ESCALATE, "read", "builtin: option",
	    "%s %s acts on the files a list names, which the policy cannot "
	    "see before it runs", what, opt);
}

/*
 * The walk. an_walk_any is the only place that reads "--"; the other
 * walks are built on it.
 */
static const struct optdef o_none[] = {
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset no_opts = { 1, 0, o_none };

void
an_walk_init(struct an_walk *it, int from, const char *optarg,
    enum an_walk_how how)
{
	it->k = from;
	it->opts = 1;
	it->dashdash = 0;
	it->optarg = optarg;
	it->how = how;
	it->os = &no_opts;
	it->sub = NULL;
	it->sub_lazy = 0;
	it->reread = 0;
	it->cur = -1;
}


int
an_walk_any(const struct cmdv *v, struct an_walk *it, int *opt)
{
	const struct sh_word *w;

	for (; it->k < v->n; it->k++) {
		w = &v->w[it->k];
		/* (an_lit and an_is_opt, written out: the hottest loop) */
		if (it->opts && (w->flags & SH_W_LITERAL) && w->s[0] == '-' &&
		    w->s[1] == '-' && w->s[2] == '\0') {   /* "--" */
			it->opts = 0;
			it->dashdash = 1;
			continue;
		}
		*opt = it->opts && (w->flags & SH_W_LITERAL) &&
		    w->s[0] == '-' && w->s[1] != '\0';
		return it->k++;
	}
	return -1;
}

int
an_walk_next(const struct cmdv *v, struct an_walk *it)
{
	const char *s;
	int k, opt;

	while ((k = an_walk_any(v, it, &opt)) >= 0) {
		if (!opt)
			return k;
		s = v->w[k].s;
		if (it->how == AN_W_ALONE && s[1] != '-' && s[2] == '\0' &&
		    strchr(it->optarg, s[1]) != NULL)
			it->k++;        /* the value follows */
		else if (it->how == AN_W_CLUSTER &&
		    an_cluster_takes_next(s, it->optarg))
			it->k++;
	}
	return -1;
}

int
an_walk_prefix(const struct cmdv *v, struct an_walk *it, int lone_dash)
{
	int k, at = it->k, opt;

	if (!it->opts || at >= v->n || !an_lit(&v->w[at]))
		return -1;
	if ((k = an_walk_any(v, it, &opt)) < 0)
		return -1;
	if (k != at) {
		it->k = k;      /* "--" was passed over: k is the command */
		return -1;
	}
	if (!opt && !(lone_dash && strcmp(v->w[k].s, "-") == 0)) {
		it->k = k;
		it->opts = 0;
		return -1;
	}
	return k;
}

void
an_walk_table(struct an_walk *it, const struct optset *os, const char *sub)
{
	it->os = os != NULL ? os : &no_opts;
	it->sub = sub;
	it->sub_lazy = 0;
	it->reread = 0;
	it->cur = -1;
}

/* A value the option takes: none, the next word (or attached), or
 * attached only. */
static int
takes_value(const struct optdef *d)
{
	return d->kind == OK_ESC || d->kind == OK_FLAG ? 0 :
	    d->kind == OK_OPTVAL ? 2 : 1;
}

static const char *subcommand(const struct cmdv *v, const char *optarg);

/* Does entry d apply to the subcommand? (an_opts_scan finds it only when
 * an entry names one.) */
static int
sub_matches(const struct cmdv *v, struct an_walk *it,
    const struct optdef *d)
{
	if (d->sub == NULL)
		return 1;
	if (it->sub_lazy) {
		it->sub = subcommand(v, it->optarg);
		it->sub_lazy = 0;
	}
	return it->sub != NULL && strcmp(d->sub, it->sub) == 0;
}

/*
 * Does entry d name the long-looking option word s (name length nl)?
 * Returns 0, 1 (a "--name" of which s is an abbreviation, or exact),
 * 2 (a single-dash long option: -toolexec, -fplugin=x).
 */
static inline int
long_match(const struct optset *os, const struct optdef *d, const char *s,
    size_t nl)
{
	size_t dl;

	if (d->opt[1] == '-') {
		/* the first letter first: most entries differ there */
		if (s[1] != '-' || s[2] != d->opt[2])
			return 0;
		dl = strlen(d->opt);
		return nl >= (os->minabbr ? (size_t)os->minabbr : 3) &&
		    nl <= dl && strncmp(s, d->opt, nl) == 0;
	}
	if (d->opt[2] == '\0' || s[1] != d->opt[1])
		return 0;       /* short: a letter of a cluster */
	return strncmp(s, d->opt, strlen(d->opt)) == 0 ? 2 : 0;
}

/* The next entry that names the long-looking word it->cur. */
static int
opt_long(const struct cmdv *v, struct an_walk *it, struct an_opt *o)
{
	int k = it->cur;
	struct sh_word *w = &v->w[k];
	const char *s = w->s, *eq = strchr(s, '=');
	size_t nl = eq != NULL ? (size_t)(eq - s) : strlen(s), dl;
	const struct optdef *d;
	int m, t;

	for (; (d = it->d)->opt != NULL; it->d++) {
		if ((m = long_match(it->os, d, s, nl)) == 0 ||
		    !sub_matches(v, it, d))
			continue;
		dl = strlen(d->opt);
		it->d++;
		it->hits++;
		o->d = d;
		o->ambiguous = m == 1 && it->nlong > 1;
		t = takes_value(d);
		if (m == 1 && eq != NULL) {
			it->tail = tail_word(w, nl + 1);
			o->val = &it->tail;
		} else if (m == 2 && s[dl] == '=') {
			it->tail = tail_word(w, dl + 1);
			o->val = &it->tail;
		} else if (m == 2 && s[dl] != '\0') {
			it->tail = tail_word(w, dl);
			o->val = &it->tail;
		} else if (t == 1 && k + 1 < v->n) {
			o->val = &v->w[k + 1];
			if (d->kind == OK_READ2 && k + 2 < v->n)
				o->val2 = &v->w[k + 2];
			if (!it->reread && it->skip < 1 + (o->val2 != NULL))
				it->skip = 1 + (o->val2 != NULL);
		}
		if (t == 0)
			o->val = NULL;
		return 1;
	}
	return 0;
}

/* The value of the letter it->q: the rest of its word, or (t == 1) the
 * next word. */
static void
opt_letter_value(const struct cmdv *v, struct an_walk *it, struct an_opt *o,
    int t)
{
	int k = it->cur;
	struct sh_word *w = &v->w[k];

	if (it->q[1] != '\0') {
		it->tail = tail_word(w, (size_t)(it->q + 1 - w->s));
		o->val = &it->tail;
	} else if (t == 1 && k + 1 < v->n) {
		o->val = &v->w[k + 1];
	}
}

/* The next entry that names a letter of the cluster it->cur. */
static int
opt_cluster(const struct cmdv *v, struct an_walk *it, struct an_opt *o)
{
	int k = it->cur;
	struct sh_word *w = &v->w[k];
	const char *s = w->s;
	const struct optdef *d;
	int t;

	while (*it->q != '\0' && (it->q == s + 1 || it->os->cluster)) {
		if (it->d == NULL) {
			it->d = it->os->d;
			it->takes = it->optarg != NULL &&
			    strchr(it->optarg, *it->q) != NULL;
			it->lhits = 0;
		}
		it->shown[0] = '-';
		it->shown[1] = *it->q;
		it->shown[2] = '\0';
		for (; (d = it->d)->opt != NULL; it->d++) {
			if (d->opt[1] != *it->q || d->opt[2] != '\0' ||
			    !sub_matches(v, it, d))
				continue;
			it->d++;
			it->hits++;
			it->lhits++;
			o->d = d;
			o->name = it->shown;
			if ((t = takes_value(d)) == 0)
				return 1;
			it->takes = t;
			opt_letter_value(v, it, o, t);
			return 1;
		}
		if (it->takes == 1 && it->lhits == 0) {
			/* a letter of optarg no entry names: its value */
			it->hits++;
			it->lhits++;
			o->d = NULL;
			o->name = it->shown;
			opt_letter_value(v, it, o, 1);
			return 1;
		}
		if (it->takes) {
			/* the rest of the word, or the next word, is its value */
			if (it->q[1] == '\0' && it->takes == 1 && !it->reread)
				it->skip = 1;
			break;
		}
		it->q++;
		it->d = NULL;
	}
	return 0;
}

/* Starts reading option word k: counts the long entries naming it. */
static void
opt_start(const struct cmdv *v, struct an_walk *it, int k)
{
	const char *s = v->w[k].s, *eq;
	const struct optdef *d;
	size_t nl;

	it->cur = k;
	it->hits = 0;
	it->skip = 0;
	it->nlong = 0;
	it->d = it->os->d;
	it->q = NULL;
	if (s[1] != '-' && s[2] == '\0') {
		it->q = s + 1;          /* -x: a letter only */
		it->d = NULL;
		return;
	}
	if (s[1] != '-' || it->reread)
		return;         /* (an_opts_scan does not ask: no count) */
	eq = strchr(s, '=');
	nl = eq != NULL ? (size_t)(eq - s) : strlen(s);
	for (d = it->d; d->opt != NULL; d++)
		if (d->opt[1] == '-' && long_match(it->os, d, s, nl) == 1 &&
		    sub_matches(v, it, d))
			it->nlong++;
}

int
an_opt_next(const struct cmdv *v, struct an_walk *it, struct an_opt *o)
{
	int k, opt;
	const char *s;

	for (;;) {
		if (it->cur < 0) {
			if ((k = an_walk_any(v, it, &opt)) < 0)
				return -1;
			o->k = k;
			o->name = s = v->w[k].s;
			o->d = NULL;
			o->ambiguous = 0;
			o->val = o->val2 = NULL;
			if (!it->opts || s[0] != '-' || s[1] == '\0')
				return 0;
			opt_start(v, it, k);
		}
		o->k = it->cur;
		o->name = v->w[it->cur].s;
		o->d = NULL;
		o->ambiguous = 0;
		o->val = o->val2 = NULL;
		if (it->q == NULL) {
			if (opt_long(v, it, o))
				return 1;
			if (it->hits == 0 && v->w[it->cur].s[1] != '-') {
				it->q = v->w[it->cur].s + 1;    /* a cluster */
				it->d = NULL;
			}
		}
		if (it->q != NULL && opt_cluster(v, it, o))
			return 1;
		k = it->cur;
		it->cur = -1;
		it->k = k + 1 + it->skip;
		if (it->hits == 0) {
			/* an option no entry names; --name=VALUE: its value */
			s = v->w[k].s;
			if (s[1] == '-' && strchr(s, '=') != NULL) {
				it->tail = tail_word(&v->w[k],
				    (size_t)(strchr(s, '=') - s) + 1);
				o->val = &it->tail;
			}
			return 1;
		}
	}
}

const struct optset *
an_optset(int set)
{
	return (unsigned)set < OPTS_N && optsets[set].d != NULL ?
	    &optsets[set] : NULL;
}

int
an_opt_exact(const struct an_opt *o)
{
	size_t n;

	if (o->d == NULL || o->ambiguous)
		return 0;
	if (o->name[1] != '-')
		return 1;       /* a letter, or a single-dash long option */
	n = strcspn(o->name, "=");
	return strncmp(o->name, o->d->opt, n) == 0 && o->d->opt[n] == '\0';
}

/*
 * The subcommand: the first operand, skipping the values of options that
 * take one (short letters in optarg). NULL when it is not literal.
 */
static const char *
subcommand(const struct cmdv *v, const char *optarg)
{
	struct an_walk it;
	int k, opt;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		if (!an_lit(&v->w[k]))
			return NULL;
		if (!opt)
			return v->w[k].s;
		if (an_cluster_takes_next(v->w[k].s, optarg))
			it.k++;
	}
	return NULL;
}

/*
 * Judges the option values of v against the option set of its program,
 * before its class handler runs.
 */
void
an_opts_scan(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct an_walk it;
	struct an_opt o;

	if (pr->opts == OPTS_NONE)
		return;
	if ((unsigned)pr->opts >= OPTS_N || optsets[pr->opts].d == NULL) {
		/* a set named in progs[] but not written here: fail closed */
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option table",
		    "the option table has no entry for %s: its options "
		    "escalate", v->w[0].s);
		return;
	}
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, &optsets[pr->opts], NULL);
	it.sub_lazy = 1;        /* the subcommand, when an entry names one */
	it.reread = 1;
	while (an_opt_next(v, &it, &o) >= 0)
		if (o.d != NULL)
			apply(ev, v, o.d, o.val, o.val2, o.name);
}
