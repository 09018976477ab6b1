/*
 * test_policy_trees.c - tree walkers (grep -r, rg, find -exec, tar c,
 * zip -r, cp -r) read every file below the trees they walk: a read of
 * every denyRead path there. The tests build a real project: a .env at
 * its root, a key in keys/, a hidden .npmrc in hid/, links in links/ to
 * a key and a directory outside, clean src/ and lib/, and next to the
 * project big/ with more entries than the analyser looks at (hard links:
 * no inode each).
 * Commands run from the project root with the built-in defaults.
 *
 * Each "stricter" line was allowed before (docs/POLICY.md, "What the
 * policy cannot see": tree walkers inside the project).
 */
#include "policy/policy.h"
#include "tests/tap.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the entries the analyser looks at, at most (TREE_MAX, internal to
 * policy/: policy/evidence.h) */
#define TREE_MAX 10000L

#define A POLICY_ALLOW
#define E POLICY_ESCALATE

static char folder[PATH_MAX], home[PATH_MAX], cfg[PATH_MAX];

struct tcase {
	const char *cmd;
	enum policy_verdict want;
};

static const struct tcase cases[] = {
	/* grep -r reads hidden files, and does not follow links inside */
	{ "grep -r SECRET .", E },                      /* stricter */
	{ "grep -r SECRET", E },                        /* stricter */
	{ "grep -rn SECRET ./", E },                    /* stricter */
	{ "grep -R SECRET .", E },                      /* stricter */
	{ "grep -ri SECRET .", E },                     /* stricter */
	{ "grep --recursive SECRET .", E },             /* stricter */
	{ "grep --rec SECRET .", E },                   /* stricter */
	{ "grep -d recurse SECRET .", E },              /* stricter */
	{ "grep -drecurse SECRET .", E },               /* stricter */
	{ "grep --directories recurse SECRET .", E },   /* stricter */
	{ "grep --directories=rec SECRET .", E },       /* stricter */
	{ "grep -d \"$A\" SECRET .", E },               /* stricter */
	{ "grep -r SECRET keys", E },                   /* stricter: *.pem */
	{ "grep -r SECRET hid", E },                    /* stricter: .npmrc */
	{ "grep -r -e SECRET .", E },                   /* stricter */
	{ "grep -r -- SECRET .", E },                   /* stricter */
	{ "grep \"-r\" SECRET .", E },                  /* stricter */
	{ "g''rep -r SECRET .", E },                    /* stricter */
	{ "egrep -r SECRET .", E },                     /* stricter */
	{ "env grep -r SECRET .", E },                  /* stricter */
	{ "nice -n5 grep -r SECRET .", E },             /* stricter */
	{ "timeout 5 grep -r SECRET .", E },            /* stricter */
	{ "command grep -r SECRET .", E },              /* stricter */
	{ "cd src && grep -r SECRET ..", E },           /* stricter */
	{ "grep -r SECRET src", A },
	{ "grep -rn SECRET src lib", A },
	{ "grep -r SECRET src/", A },
	{ "grep -d skip SECRET .", A },
	{ "grep SECRET src/a.c", A },
	{ "grep -r SECRET links", A },          /* links inside: not followed */
	{ "grep -R SECRET links", E },          /* stricter: followed */
	{ "grep --dereference-recursive SECRET links", E },     /* stricter */
	{ "grep -r SECRET ../big", E },         /* stricter: too many to look at */
	{ "grep -r SECRET ../outside", A },
	/* rg skips hidden names unless --hidden, -. or -uu */
	{ "rg SECRET hid", A },
	{ "rg -u SECRET hid", A },
	{ "rg --no-ignore SECRET hid", A },
	{ "rg -uu SECRET hid", E },                     /* stricter */
	{ "rg -uuu SECRET hid", E },                    /* stricter */
	{ "rg -u -u SECRET hid", E },                   /* stricter */
	{ "rg -iuu SECRET hid", E },                    /* stricter */
	{ "rg --unrestricted --unrestricted SECRET hid", E },   /* stricter */
	{ "rg --hidden SECRET hid", E },                /* stricter */
	{ "rg --no-ignore --hidden SECRET hid", E },    /* stricter */
	{ "rg '--hidden' SECRET hid", E },              /* stricter */
	{ "rg -. SECRET hid", E },                      /* stricter */
	{ "timeout 5 rg -uu SECRET hid", E },           /* stricter */
	{ "rg -uu SECRET", E },                         /* stricter */
	{ "rg SECRET keys", E },                        /* stricter: not hidden */
	{ "rg SECRET", E },                             /* stricter: keys/ */
	{ "rg SECRET src lib", A },
	/* a config file of the line's choosing: --pre=CMD, --hidden */
	{ "RIPGREP_CONFIG_PATH=x.cfg rg SECRET src", E },       /* stricter */
	{ "env RIPGREP_CONFIG_PATH=x.cfg rg SECRET src", E },   /* stricter */
	{ "export RIPGREP_CONFIG_PATH=x.cfg; rg x src", E },    /* stricter */
	{ "BAT_PAGER='sh -c id' bat src/a.c", E },              /* stricter */
	{ "rg --hidden SECRET src", A },
	{ "rg -L SECRET links", E },                    /* stricter */
	{ "rg SECRET links", A },
	{ "rg --files hid", A },                        /* names only */
	{ "git diff | rg SECRET", A },                  /* its input */
	{ "rg SECRET < src/a.c", A },
	/* grep --include GLOB reads the files with those names only */
	{ "grep -r --include='*.c' SECRET .", A },
	{ "grep -r --include '*.c' --include='*.h' SECRET .", A },
	{ "grep -r --include='*.pem' SECRET .", E },            /* stricter */
	{ "grep -r --include='.e*' SECRET .", E },              /* stricter */
	{ "grep -r --include='*' SECRET .", E },                /* stricter */
	{ "grep -r --include=\"$G\" SECRET .", E },             /* stricter */
	{ "grep -r --incl='*.c' SECRET keys", A },
	{ "grep -r --include=*.c SECRET .", A },        /* bash: narrower */
	{ "find . -name *.c -exec cat {} +", A },
	/* rg -g GLOB and -t TYPE narrow the names read when they select */
	{ "rg -g '*.c' -uu SECRET", A },        /* looser: the glob selects */
	{ "rg -g '*.{c,h}' SECRET", A },
	{ "rg -t c SECRET", A },
	{ "rg --type=c -t py SECRET", A },
	{ "rg -tc SECRET keys", A },
	{ "rg -g '*.pem' SECRET", E },
	{ "rg -g '*.{c,pem}' SECRET", E },
	{ "rg --iglob '*.PEM' SECRET", E },
	{ "rg --glob-case-insensitive -g '*.PEM' SECRET", E },
	{ "rg -g '.env' SECRET", E },           /* selected: read, hidden or not */
	{ "rg -g '.e*' -g '*.c' SECRET", E },
	{ "rg -g '!*.c' SECRET", E },           /* a negation only takes away */
	{ "rg -g '!*.c' -uu SECRET", E },
	{ "rg -g \"$G\" -g '*.c' SECRET", E },
	{ "rg -g 'src/*.c' SECRET", A },        /* names "*.c" at most */
	{ "rg -g 'src/**' SECRET", E },         /* every name */
	{ "rg -g '*.{c,{h,pem}}' SECRET", E },
	{ "rg -g '**/.en[v/]' SECRET", E },     /* a '/' inside a class */
	{ "rg -g '.en[v/]' SECRET", E },
	{ "rg --files -g '.en[v/]' | xargs cat", E },
	{ "rg -g 'src/*.[ch]' SECRET", E },     /* '[' and '/': every name */
	{ "rg -g '*.[ch]' SECRET", A },         /* a class, no '/' */
	{ "rg -t c -g '*.pem' SECRET", E },     /* the glob wins over types */
	{ "rg -t c --type-add 'c:*.pem' SECRET", E },
	{ "rg --type-clear c -t c SECRET", E },
	{ "rg -t nosuchtype SECRET", E },
	{ "rg -t \"$T\" SECRET", E },
	{ "rg -T c SECRET", E },                /* only takes away */
	{ "rg --files -g '*.c' | xargs cat", A },
	/* the values of long options are no operands (the table) */
	{ "rg --glob '*.c' SECRET", A },
	{ "rg --type c SECRET", A },
	{ "rg --max-depth 3 SECRET", E },       /* stricter: "." is read */
	{ "rg -d 3 SECRET", E },                /* stricter */
	{ "rg --context 2 SECRET", E },         /* stricter */
	{ "grep -r --max-count 1 SECRET", E },  /* stricter */
	{ "grep -r --regexp SECRET", E },
	{ "grep -r --exclude '*.md' SECRET src", A },
	{ "rg --hostname-bin ./x SECRET src", E },      /* runs it */
	{ "rg --files -g '*.pem' | xargs cat", E },
	/* what the walker skips: grep --exclude-dir (quoted), rg what a git
	 * root's .gitignore names (mods/: node_modules/ holds a key) */
	{ "grep -r SECRET mods", E },                   /* stricter */
	{ "grep -r --exclude-dir=node_modules SECRET mods", A },
	{ "grep -r --exclude-dir node_modules SECRET mods", A },
	{ "grep -r --exclude-dir='node_*' SECRET mods", A },
	{ "grep -r --exclude-dir=node_* SECRET mods", E },      /* stricter */
	{ "grep -r --exclude-dir=src SECRET mods", E },         /* stricter */
	{ "rg SECRET mods", A },
	{ "rg -u SECRET mods", E },                     /* stricter */
	{ "rg --no-ignore SECRET mods", E },            /* stricter */
	{ "rg --no-ignore-vcs SECRET mods", E },        /* stricter */
	{ "rg -g '*.c' SECRET mods", A },       /* looser: the glob selects */
	{ "rg --glob='*.c' SECRET mods", A },   /* looser */
	{ "rg -g '*.key' SECRET mods", E },
	{ "rg -g '!*.c' SECRET mods", E },      /* the glob overrides .gitignore */
	{ "rg SECRET neg", E },                 /* stricter: a negation */
	{ "rg --files mods | xargs cat", A },
	{ "rg --files -u mods | xargs cat", E },        /* stricter */
	/* find -exec READER reads what it finds */
	{ "find . -exec cat {} +", E },                 /* stricter */
	{ "find . -type f -exec cat {} \\;", E },       /* stricter */
	{ "find -exec cat {} +", E },                   /* stricter */
	{ "find hid -exec grep SECRET {} +", E },       /* stricter */
	{ "find src -exec cat {} +", A },
	{ "find . -name '*.c' -exec cat {} +", A },
	{ "find . -iname '*.C' -exec cat {} +", A },
	{ "find . -name '*.pem' -exec cat {} +", E },
	{ "find . -iname '.ENV' -exec cat {} +", E },   /* stricter */
	{ "find . -name '*.c' -o -name '*' -exec cat {} +", E },  /* stricter */
	{ "find . ! -name '*.c' -exec cat {} +", E },   /* stricter */
	{ "find . -not -name '*.c' -exec cat {} +", E },        /* stricter */
	{ "find . -name '*.c' , -exec cat {} +", E },   /* stricter */
	{ "find . \\( -name '*.c' \\) -exec cat {} +", A },
	{ "find . -exec echo {} +", A },        /* names only */
	{ "find . -exec ls -l {} +", A },
	{ "find ~ -exec ls {} +", E },          /* ~/.ssh: as a lister */
	{ "find . -exec sed -n p {} +", E },
	{ "find . -exec awk 1 {} +", E },
	{ "find . -exec cp {} /tmp/x \\;", E },
	{ "find links -exec cat {} +", A },
	{ "find -L links -exec cat {} +", E },          /* stricter */
	/* listers feeding readers: the names of a tree holding denyRead
	 * files are read (find . | xargs cat is find . -exec cat) */
	{ "find . -type f | xargs cat", E },            /* stricter */
	{ "find . | xargs grep SECRET", E },            /* stricter */
	{ "find -L links | xargs cat", E },             /* stricter */
	{ "cat $(find .)", E },                         /* stricter */
	{ "for f in $(find hid); do cat $f; done", E }, /* stricter */
	{ "ls -a | xargs cat", E },                     /* stricter */
	{ "ls -a --sort size | xargs cat", E },         /* stricter */
	{ "ls --all --width 80 | xargs cat", E },
	{ "ls -$X | xargs cat", E },            /* may be -a */
	{ "ls --sort size | xargs cat", A },
	{ "ls -u | xargs cat", A },             /* ls -u sorts by access time */
	{ "du -a | xargs cat", E },
	{ "du | xargs cat", A },
	{ "fd -u . | xargs cat", E },
	{ "fd . src | xargs cat", A },
	{ "fd . | xargs cat", E },             /* keys/server.pem */
	{ "fd --search-path hid x | xargs cat", E },    /* stricter */
	{ "fd --search-path=hid x | xargs cat", E },    /* stricter */
	{ "fd --base-directory ~ x | xargs cat", E },   /* stricter */
	{ "fd --max-depth 2 x src | xargs cat", A },
	{ "fd --search-path src x | xargs cat", A },
	{ "ls -A hid | xargs cat", E },                 /* stricter */
	{ "cat $(ls -a)", E },                          /* stricter */
	{ "ls keys | xargs cat", E },                   /* stricter: *.pem */
	{ "fd -H . | xargs cat", E },                   /* stricter */
	{ "rg --files -uu | xargs cat", E },            /* stricter */
	{ "tree -a -if hid | xargs cat", E },           /* stricter */
	/* nested in a stage: what the list prints goes into the pipe */
	{ "(find .; ls) | xargs cat", E },              /* stricter */
	{ "(find ~) | xargs cat", E },                  /* stricter */
	{ "(echo ~/.ssh/id_rsa) | xargs cat", E },      /* stricter */
	{ "( (find .) | sort) | xargs cat", E },        /* stricter */
	{ "(find . | xargs cat) | head", E },
	{ "(find src) | xargs cat", A },
	{ "(cd src && find .) | xargs cat", A },
	/* git prints its operands' names (rev-parse .env prints .env), and
	 * ls-files -o the untracked files, as find does */
	{ "cat $(git rev-parse --no-revs .e*)", E },    /* stricter */
	{ "cat $(git ls-files -o)", E },                /* stricter */
	{ "git ls-files --others | xargs cat", E },     /* stricter */
	{ "cat $(git ls-files '*.c')", A },
	{ "git ls-files '*.c' | xargs clang-format -i", A },
	/* the names as $0, $1 ... of code */
	{ "echo ~/.ssh/id_rsa | xargs -n1 sh -c 'cat \"$0\"'", E },   /* stricter */
	{ "find . | xargs -n1 bash -c 'cat \"$0\"'", E },     /* stricter */
	{ "find src | xargs -n1 sh -c 'wc -l \"$0\"'", A },
	{ "find . -name '*.c' | xargs cat", A },
	{ "find src lib -type f | xargs cat", A },
	{ "cat $(find src -name '*.c')", A },
	{ "ls | xargs cat", A },
	{ "ls hid | xargs cat", A },
	{ "ls -d hid | xargs cat", A },
	{ "rg --files hid | xargs cat", A },
	{ "find . -type f", A },
	{ "find . -name '*.env*'", A },         /* names only: nothing reads */
	{ "ls -a", A },
	{ "diff <(ls) <(ls -la)", A },          /* <(...) is a pipe's name */
	{ "diff <(ls -a | xargs cat) x", E },           /* stricter */
	/* names printed into <(...) and read by xargs from it */
	{ "xargs cat < <(find .)", E },                 /* stricter */
	{ "xargs cat < <(ls -a)", E },                  /* stricter */
	{ "xargs -0 cat < <(find . -print0)", E },      /* stricter */
	{ "xargs cat < <(find src)", A },
	{ "xargs cat < <(find . -name '*.c')", A },
	{ "cat < <(find .)", A },               /* prints the names */
	/* xargs's names from a here-string, a here-document, a file */
	{ "xargs cat <<< .env", E },                    /* stricter */
	{ "xargs cat <<< 'src/a.c .env'", E },          /* stricter */
	{ "xargs cat <<EOF\nsrc/a.c\n.env\nEOF", E },   /* stricter */
	{ "xargs cat < list.txt", E },          /* stricter: as -a list.txt */
	{ "xargs cat <<< src/a.c", A },
	{ "xargs cat <<EOF\nsrc/a.c\nEOF", A },
	{ "xargs cat < /dev/null", A },
	/* archives and copies read their trees */
	{ "tar czf out.tgz .", E },                     /* stricter */
	{ "tar czf out.tgz hid", E },                   /* stricter */
	{ "tar czf out.tgz src", A },
	{ "tar czf out.tgz links", A },
	{ "tar czhf out.tgz links", E },                /* stricter */
	{ "tar -chf out.tar links", E },                /* stricter */
	{ "tar --deref -cf out.tar links", E },         /* stricter */
	/* tar -C DIR: the operands after it are below DIR */
	{ "tar cf - -C ~ .ssh", E },                    /* stricter */
	{ "tar -C ~ -cf - .ssh", E },                   /* stricter */
	{ "tar --directory=~ -cf - .ssh/id_rsa", E },
	{ "tar cf out.tar -C .. proj/.env", E },
	{ "tar czf out.tgz -C \"$D\" x", E },           /* stricter */
	{ "tar cf out.tar -C src .", A },
	{ "tar cf out.tar src -C src .", A },
	{ "tar cf out.tar -C src . -C ~ .ssh", E },     /* stricter */
	/* find's leading options come before its paths */
	{ "find -L ~ -exec cat {} +", E },              /* stricter */
	{ "find -H -L ~ -exec cat {} +", E },           /* stricter */
	{ "find -D tree -O2 ~ -exec cat {} +", E },     /* stricter */
	{ "find -H . -delete", E },                     /* stricter */
	{ "find -P src -exec cat {} +", A },
	{ "zip -r out.zip hid", E },                    /* stricter */
	{ "zip -r out.zip links", E },                  /* stricter: follows */
	{ "zip -ry out.zip links", A },
	{ "zip -r out.zip src", A },
	{ "cp -r hid copy", E },                        /* stricter */
	{ "cp -a keys copy", E },                       /* stricter */
	{ "cp -r src copy", A },
	{ "cp -rL links copy", E },                     /* stricter */
};

/* Claude Code's Grep tool: path (NULL: the working directory), glob,
 * type (NULL: none) */
static const struct gcase {
	const char *path, *glob, *type;
	enum policy_verdict want;
} grep_cases[] = {
	{ NULL, NULL, NULL, E },                /* stricter: .env, keys/ */
	{ ".", NULL, NULL, E },                 /* stricter */
	{ "hid", NULL, NULL, E },               /* stricter: hidden read */
	{ "mods", NULL, NULL, E },              /* stricter: no .gitignore */
	{ "../big", NULL, NULL, E },            /* stricter: too many */
	{ "src", NULL, NULL, A },
	{ "src/a.c", NULL, NULL, A },
	{ "links", NULL, NULL, A },             /* links inside: not followed */
	{ NULL, "*.c", NULL, A },
	{ NULL, "**/*.c", NULL, A },
	{ NULL, "src/*.c", NULL, A },           /* names "*.c" at most */
	{ NULL, "*.{c,h}", NULL, A },
	{ "mods", "*.c", NULL, A },
	{ NULL, NULL, "c", A },
	{ NULL, NULL, "py", A },
	{ NULL, "*.pem", NULL, E },
	{ NULL, "*.{c,pem}", NULL, E },
	{ NULL, "*.c *.pem", NULL, E },         /* perhaps two globs */
	{ NULL, "*.c,*.pem", NULL, E },
	{ NULL, "!*.c", NULL, E },
	{ NULL, "src/**", NULL, E },
	{ NULL, "*.{c,{h,pem}}", NULL, E },
	{ NULL, "**/.en[v/]", NULL, E },        /* a '/' inside a class */
	{ NULL, ".en[v/]", NULL, E },
	{ NULL, "*.[ch]", NULL, A },
	{ NULL, ".env*", NULL, E },
	{ NULL, NULL, "nosuchtype", E },
	{ NULL, "*.pem", "c", E },              /* the glob wins over the type */
	{ "mods", "*.key", NULL, E },
};

static struct policy_result
judge_grep(const struct policy *p, const struct gcase *g)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "pattern", "SECRET");
	if (g->path != NULL)
		cJSON_AddStringToObject(in, "path", g->path);
	if (g->glob != NULL)
		cJSON_AddStringToObject(in, "glob", g->glob);
	if (g->type != NULL)
		cJSON_AddStringToObject(in, "type", g->type);
	memset(&c, 0, sizeof(c));
	c.tool = "Grep";
	c.input = in;
	c.cwd = folder;
	c.folder = folder;
	c.home = home;
	c.config_dir = cfg;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

/* Cases with allowRead for the two secrets at the root and in hid/ */
static const struct tcase allow_cases[] = {
	{ "grep -r SECRET hid", A },
	{ "rg -uu SECRET hid", A },
	{ "grep -r SECRET keys", E },                   /* stricter */
};

static struct policy_result
judge(const struct policy *p, const char *cmd)
{
	struct policy_result r;
	struct policy_call c;
	cJSON *in = cJSON_CreateObject();

	cJSON_AddStringToObject(in, "command", cmd);
	memset(&c, 0, sizeof(c));
	c.tool = "Bash";
	c.input = in;
	c.cwd = folder;
	c.folder = folder;
	c.home = home;
	c.config_dir = cfg;
	policy_eval(p, &c, &r);
	cJSON_Delete(in);
	return r;
}

static int
touch(const char *dir, const char *name)
{
	char path[PATH_MAX * 2];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return -1;
	return close(fd);
}

static int
sub(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
	return mkdir(out, 0700);
}

static void
run(const struct policy *p, const struct tcase *tc, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct policy_result r = judge(p, tc[i].cmd);

		ok(r.verdict == tc[i].want, "%s -> %s (%s)", tc[i].cmd,
		    policy_verdict_name(tc[i].want), r.reason);
	}
}

int
main(void)
{
	char tmpl[] = "/tmp/sbx-test-trees-XXXXXX", *base = mkdtemp(tmpl);
	char d[PATH_MAX * 2], t[PATH_MAX * 3], first[PATH_MAX * 3];
	struct policy_error err;
	struct policy *p;
	long k;
	int bad = 0;

	if (base == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(folder, sizeof(folder), "%s/proj", base);
	snprintf(home, sizeof(home), "%s/home", base);
	snprintf(cfg, sizeof(cfg), "%s/home/.config/sbx", base);
	bad |= mkdir(folder, 0700) | mkdir(home, 0700);
	bad |= touch(folder, ".env");
	bad |= sub(d, sizeof(d), folder, "src");
	bad |= touch(d, "a.c");
	bad |= sub(d, sizeof(d), folder, "lib");
	bad |= touch(d, "b.c");
	bad |= sub(d, sizeof(d), folder, "keys");
	bad |= touch(d, "server.pem");
	bad |= sub(d, sizeof(d), folder, "hid");
	bad |= touch(d, ".npmrc");
	bad |= touch(d, "x.txt");
	bad |= sub(d, sizeof(d), home, ".ssh");
	bad |= touch(d, "id_rsa");
	bad |= sub(d, sizeof(d), base, "outside");
	bad |= touch(d, "o.txt");
	bad |= sub(d, sizeof(d), folder, "mods");
	bad |= sub(t, sizeof(t), d, ".git");
	bad |= sub(t, sizeof(t), d, "src");
	bad |= touch(t, "m.c");
	bad |= sub(t, sizeof(t), d, "node_modules");
	bad |= sub(first, sizeof(first), t, "pkg");
	bad |= touch(first, "server.key");
	bad |= sub(d, sizeof(d), folder, "neg");
	bad |= sub(t, sizeof(t), d, ".git");
	bad |= sub(t, sizeof(t), d, "node_modules");
	bad |= touch(t, "k.pem");
	{
		static const char gi[] = "# deps\nnode_modules/\n*.log\n";
		static const char gneg[] = "node_modules\n!node_modules/x\n";
		FILE *f;

		snprintf(t, sizeof(t), "%s/mods/.gitignore", folder);
		if ((f = fopen(t, "w")) == NULL || fputs(gi, f) < 0 ||
		    fclose(f) != 0)
			bad = 1;
		snprintf(t, sizeof(t), "%s/neg/.gitignore", folder);
		if ((f = fopen(t, "w")) == NULL || fputs(gneg, f) < 0 ||
		    fclose(f) != 0)
			bad = 1;
	}
	bad |= sub(d, sizeof(d), folder, "links");
	snprintf(t, sizeof(t), "%s/.ssh/id_rsa", home);
	snprintf(first, sizeof(first), "%s/key", d);
	bad |= symlink(t, first);
	snprintf(t, sizeof(t), "%s/outside", base);
	snprintf(first, sizeof(first), "%s/dir", d);
	bad |= symlink(t, first);
	/* big/: more entries than TREE_MAX, as hard links of one file */
	bad |= sub(d, sizeof(d), base, "big");
	bad |= touch(d, "f0");
	snprintf(first, sizeof(first), "%s/f0", d);
	for (k = 1; k <= TREE_MAX && !bad; k++) {
		snprintf(t, sizeof(t), "%s/f%ld", d, k);
		bad |= link(first, t);
	}
	if (bad) {
		printf("Bail out! cannot build the tree under %s\n", base);
		return 1;
	}
	p = policy_load_buffer("defaults", policy_default_text(),
	    strlen(policy_default_text()), folder, cfg, &err);
	if (p == NULL) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	run(p, cases, sizeof(cases) / sizeof(cases[0]));
	for (k = 0; k < (long)(sizeof(grep_cases) / sizeof(grep_cases[0]));
	    k++) {
		const struct gcase *g = &grep_cases[k];
		struct policy_result r = judge_grep(p, g);

		ok(r.verdict == g->want, "Grep path %s glob %s type %s -> %s "
		    "(%s)", g->path ? g->path : "-", g->glob ? g->glob : "-",
		    g->type ? g->type : "-", policy_verdict_name(g->want),
		    r.reason);
	}
	/* what a walk found is kept while the policy lives (one call), and
	 * forgotten by policy_forget_fs (sbxd, before each call) */
	{
		struct policy_result r = judge(p, "grep -r SECRET lib");

		ok(r.verdict == A, "lib holds no secret: allowed (%s)", r.reason);
		snprintf(d, sizeof(d), "%s/lib", folder);
		bad |= touch(d, ".env.local");
		r = judge(p, "grep -r SECRET lib");
		ok(!bad && r.verdict == A, "the same policy: the walk is kept "
		    "(%s)", r.reason);
		policy_forget_fs(p);
		r = judge(p, "grep -r SECRET lib");
		ok(r.verdict == E, "after policy_forget_fs: lib/.env.local is "
		    "seen (%s)", r.reason);
	}
	policy_free(p);
	{
		static const char pol[] = "{\"filesystem\": {\"allowRead\": "
		    "[\"./hid/.npmrc\"]}}";

		p = policy_load_buffer("allowread", pol, strlen(pol), folder,
		    cfg, &err);
		if (p == NULL) {
			printf("Bail out! %s\n", err.msg);
			return 1;
		}
	}
	run(p, allow_cases, sizeof(allow_cases) / sizeof(allow_cases[0]));
	policy_free(p);
	snprintf(t, sizeof(t), "rm -rf %s", base);
	if (system(t) != 0)
		printf("# could not remove %s\n", base);
	return tap_done();
}
