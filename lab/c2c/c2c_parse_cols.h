/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the perf c2c report parser (c2c_parse.c) only: the report's
 * columns, the part that changes with each perf version
 * (c2c_parse_cols.c).  Keys are enum c2c_cl_key and enum c2c_off_key of
 * c2c_parse_keys.h, or KEY_NUM and KEY_UNKNOWN.
 */
#ifndef LAB_C2C_C2C_PARSE_COLS_H
#define LAB_C2C_C2C_PARSE_COLS_H

#include <stdbool.h>
#include <stddef.h>

/* What a cell holds. */
enum ctype { T_ANY, T_INT, T_PCT, T_HEX, T_NODE, T_TIDCOMM, T_TEXT };

#define MAX_COLS 64
#define KEY_NUM (-2)		/* the Pareto "Num" column */
#define KEY_UNKNOWN (-1)

struct col {
	char name[48];
	char group[48];
	int key;
	enum ctype type;
	int end;		/* column of the header text's last character */
};

struct seg {
	int start, end;		/* [start, end) */
};

struct tok {
	const char *s;
	int len;
};

#define MAX_TOKS 96

/* A header line: its group labels without dashes, its cells apart (two spaces or more). */
void c2c_clean_label(char *dst, size_t n, const char *s, size_t len);
int c2c_split_cells(const char *s, struct seg *out, int max);
/* Whether a group label holds word (case-insensitive). */
bool c2c_group_has(const char *group, const char *word);
/* Whether a line's tokens are the name row of the cacheline table (Index
 * and Address or Cacheline) or of a Pareto block (Num and Offset). */
bool c2c_is_cl_header(const struct tok *t, int n);
bool c2c_is_pareto_header(const struct tok *t, int n);

/* The key of a header cell of the cacheline table (share_of: what a share
 * column is of) or of the Pareto table; KEY_UNKNOWN for none.  taken: the
 * keys earlier cells took. */
int c2c_map_cl_col(const struct col *c, const bool *taken, const char **share_of);
int c2c_map_pareto_col(const struct col *c, const bool *taken, bool after_text);
/* What a cell of that key holds. */
enum ctype c2c_cl_type(int key);
enum ctype c2c_off_type(int key);

/* A row in space-separated tokens, at most max; *stop where it stopped. */
int c2c_tokenize(const char *s, struct tok *t, int max, const char **stop);
bool c2c_is_hex(const char *s, int len);
bool c2c_is_number(const char *s, int len);
/* "[k]", "[.]", ...: where an offset row's text columns start. */
bool c2c_is_symbol_mark(const struct tok *k);
/* Whether a token is what a cell of type t holds, and the words for it. */
bool c2c_tok_is(enum ctype t, const struct tok *k);
const char *c2c_type_name(enum ctype t);

#endif
