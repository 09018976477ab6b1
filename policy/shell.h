/*
 * shell.h - parses a shell command line the way bash would read it, into
 * the flat list of simple commands it would run.
 *
 * Rules:
 * - MUST run in time linear in the input (nesting is capped, every
 *   character is scanned a bounded number of times) and MUST NOT crash
 *   or hang on any input: a line it cannot read with certainty is
 *   reported in sh_parse.problem, and the caller escalates it.
 * - Words are decoded (quotes, backslashes, ANSI-C $'...'); a word whose
 *   value depends on an expansion ($x, $(...), globs, braces) is marked
 *   not literal. Commands inside $(...), `...`, <(...) and >(...) are
 *   parsed and listed like any other.
 * - Ownership: everything a parse returns lives in its arena and is
 *   freed by sh_parse_free(); nothing borrows from the input text.
 */
#ifndef SBX_SHELL_H
#define SBX_SHELL_H

#include <stddef.h>

#define SH_MAX_INPUT    (1L << 20)      /* longer lines are not parsed */
#define SH_MAX_DEPTH    64              /* nesting of (), $(), ``, ${} */
#define SH_MAX_CMDS     4096            /* simple commands per line */
#define SH_MAX_WORDS    4096            /* words per simple command */
#define SH_MAX_REDIRS   64              /* redirections per command */

/* Word flags. */
#define SH_W_LITERAL    0x01    /* value fully known: no expansion */
#define SH_W_GLOB       0x02    /* unquoted * ? [ : pathname expansion */
#define SH_W_QUOTED     0x04    /* some part was quoted or escaped */
#define SH_W_SUBST      0x08    /* contains $(...), `...` or <(...) */
#define SH_W_VAR        0x10    /* contains $name or ${...} */
#define SH_W_ASSIGN     0x20    /* NAME=value with an unquoted NAME= */
#define SH_W_TILDE      0x40    /* starts with an unquoted ~ */
#define SH_W_BRACE      0x80    /* unquoted brace expansion {a,b} */

/*
 * In a word's text, a plain $NAME or ${NAME} is kept as SH_VAR_MARK NAME
 * SH_VAR_MARK, so the analyser can tell "$HOME/.ssh" from "/.ssh". Other
 * expansions leave nothing in the text.
 */
#define SH_VAR_MARK     '\x01'

/*
 * The forms of a marker's NAME: "NAME" ($NAME, ${NAME}); "NAME-"
 * (${NAME:-x}, ${NAME=x}: NAME's value when set, else unknown); "#" (a
 * number: $#, $?, $$, ${#x}, $((...))); "?" (a positional word: $1, $@);
 * "!" (a value that cannot
 * be known: ${x:+y}, ${x%y}, ${x/y/z}, ${!x}). An unquoted expansion,
 * which bash splits and globs, starts with SH_VAR_UNQUOTED.
 */
#define SH_VAR_UNQUOTED '^'

/*
 * Arithmetic ($((...)), $[...], ${a[i]}, ${x:off:len}) is listed as a
 * command whose name is SH_ARITH (which no input can spell: \x01 is
 * refused) and whose one word is the expression as written.
 */
#define SH_ARITH        "\x01arith"

struct sh_word {
	char *s;                /* decoded text, NUL-terminated (arena) */
	size_t len;
	unsigned flags;
};

enum sh_redir_op {
	SH_R_IN,                /* <  */
	SH_R_OUT,               /* >  */
	SH_R_APPEND,            /* >> */
	SH_R_CLOBBER,           /* >| */
	SH_R_INOUT,             /* <> */
	SH_R_DUP,               /* >&N, <&N, >&-: no file */
	SH_R_OUTERR,            /* &> and >& FILE */
	SH_R_APPENDERR,         /* &>> */
	SH_R_HEREDOC,           /* << and <<- */
	SH_R_HERESTR,           /* <<< */
};

struct sh_redir {
	int fd;                 /* the fd redirected, -1 for the default */
	enum sh_redir_op op;
	struct sh_word target;  /* file, fd, delimiter, or here-string */
	char *body;             /* here-document body (arena), or NULL */
	size_t body_len;
	int body_literal;       /* delimiter quoted: body is not expanded */
	char *delim;            /* here-document: the delimiter as bash
	                           compares it (quotes removed, nothing
	                           expanded: <<a$(x) ends at "a$(x)") */
	int delim_quoted;       /* some part of it was quoted */
};

enum sh_cmd_kind {
	SH_SIMPLE,              /* a simple command */
	SH_PUSH,                /* a subshell begins: cd inside stays inside */
	SH_POP,                 /* the subshell ends */
	SH_NOP,                 /* nothing (a place kept for a SH_PUSH) */
};

/* How a command is joined to the next one. */
enum sh_conn {
	SH_C_END, SH_C_SEQ, SH_C_AND, SH_C_OR, SH_C_BG, SH_C_PIPE,
};

struct sh_cmd {
	enum sh_cmd_kind kind;
	struct sh_word *argv;   /* argc words (arena) */
	int argc;
	struct sh_redir *redir; /* nredir redirections (arena) */
	int nredir;
	int pipeline;           /* id shared by the stages of one pipeline */
	int stage;              /* 0 for the first stage */
	int pipe_in;            /* stdin comes from a pipe */
	int out_pipeline;       /* nested in a stage ((a; b) | c): the
	                           pipeline its output goes into, or -1 */
	enum sh_conn conn;      /* connector after this command */
	int in_subst;           /* runs inside $(...), `...` (1: its output
	                           becomes words), or <(...), >(...) (2) */
	int cond;               /* inside if/while/until/for: may run zero
	                           or many times */
	int guarded;            /* may not run: 1 after &&, 2 after || */
};

struct sh_arena;

struct sh_parse {
	struct sh_cmd *cmds;    /* ncmds entries, owned */
	int ncmds;
	char problem[200];      /* non-empty: the line cannot be judged */
	struct sh_arena *arena;
};

/*
 * Parses len bytes of text. Returns 0 when the line was read completely,
 * -1 when it was not (problem says why; cmds holds what was read). In
 * both cases the caller MUST call sh_parse_free(). depth is the nesting
 * already used by the caller (0 at top level; bash -c strings add one).
 */
int sh_parse(const char *text, size_t len, int depth, struct sh_parse *out);
void sh_parse_free(struct sh_parse *p);

/* Copies len bytes into the parse's arena; NULL when the arena is full. */
char *sh_strdup(struct sh_parse *p, const char *s, size_t len);

#endif
