// SPDX-License-Identifier: GPL-2.0
/*
 * The columns of `perf c2c report --stdio`, the part of its parser that
 * changes with each perf version: a header line's cells and group labels,
 * the rules that give each cell of the Shared Data Cache Line Table and of
 * the Pareto table its key (cl_rules, pareto_rules: one row per column name
 * any perf has printed, with the group above it), and what a cell of each
 * key may hold.  A new perf's column is a row here; the section state
 * machine that uses them is c2c_parse.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_parse_cols.h"
#include "c2c/c2c_parse_keys.h"
#include "util/strfmt.h"

/* ---------------------------------------------------------------- */
/* Header cells                                                      */

/* Collapses runs of spaces and strips dashes: "------- Load Hitm -------" -> "Load Hitm". */
void c2c_clean_label(char *dst, size_t n, const char *s, size_t len)
{
	size_t o = 0;
	bool space = false;

	while (len && (*s == '-' || *s == ' ')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == '-' || s[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < len && o + 1 < n; i++) {
		if (s[i] == ' ') {
			space = true;
			continue;
		}
		if (space && o)
			dst[o++] = ' ';
		space = false;
		if (o + 1 < n)
			dst[o++] = s[i];
	}
	dst[o] = '\0';
}

/* Splits a header line into cells separated by two or more spaces. */
int c2c_split_cells(const char *s, struct seg *out, int max)
{
	int n = 0, i = 0, len = (int)strlen(s);

	while (i < len && n < max) {
		int st, en;

		while (i < len && s[i] == ' ')
			i++;
		if (i >= len)
			break;
		st = i;
		for (;;) {
			while (i < len && s[i] != ' ')
				i++;
			/* A single space inside a cell ("PA cnt", "L1 Hit"). */
			if (i + 1 < len && s[i] == ' ' && s[i + 1] != ' ') {
				i++;
				continue;
			}
			break;
		}
		en = i;
		out[n].start = st;
		out[n].end = en;
		n++;
	}
	return n;
}

/* A table's name row, known by its column names wherever it stands. */
bool c2c_is_cl_header(const struct tok *t, int n)
{
	bool idx = false, addr = false;

	for (int i = 0; i < n; i++) {
		if (t[i].len == 5 && !strncmp(t[i].s, "Index", 5))
			idx = true;
		if ((t[i].len == 7 && !strncmp(t[i].s, "Address", 7)) ||
		    (t[i].len == 9 && !strncmp(t[i].s, "Cacheline", 9)))
			addr = true;
	}
	return idx && addr;
}

bool c2c_is_pareto_header(const struct tok *t, int n)
{
	bool num = false, off = false;

	for (int i = 0; i < n; i++) {
		if (t[i].len == 3 && !strncmp(t[i].s, "Num", 3))
			num = true;
		if (t[i].len == 6 && !strncmp(t[i].s, "Offset", 6))
			off = true;
	}
	return num && off;
}

/* ---------------------------------------------------------------- */
/* Column rules: a header cell to its key                            */

static bool ieq(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}

bool c2c_group_has(const char *group, const char *word)
{
	return strcasestr(group, word) != NULL;
}

/*
 * Which key a header column gets, from its name and the group label above
 * it.  The rules are tried in order; the first that matches and whose key
 * no earlier column took wins, so a repeated column name (the v1 RFC's two
 * "Snoop Peer") falls through to the next rule that fits.
 */
enum gmatch { G_ANY, G_IS, G_HAS };

struct col_rule {
	enum gmatch gm;
	const char *group;
	const char *names;	/* "A|B": any of them, case-insensitive */
	int key;
	const char *share_of;	/* CL_SHARE_PCT: what the share is of */
	const char *group_not;	/* a group holding this word does not match */
	bool prefix;		/* the names are prefixes ("Node" of "Node{cpus ...}") */
	bool after_text;	/* only among the text columns */
};

#define ANY(n, k) { .gm = G_ANY, .names = n, .key = k }
#define IS(g, n, k) { .gm = G_IS, .group = g, .names = n, .key = k }
#define HAS(g, n, k) { .gm = G_HAS, .group = g, .names = n, .key = k }
#define SHARE(g, n, of) { .gm = G_IS, .group = g, .names = n, .key = CL_SHARE_PCT, .share_of = of }
#define LLC_HIT(n, k) { .gm = G_HAS, .group = "LLC Load Hit", .names = n, .key = k, .group_not = "Hitm" }
#define NODE_INFO(after) { .gm = G_ANY, .names = "Node", .key = OFF_NODE_INFO, .prefix = true, .after_text = after }

static bool name_in(const char *n, const char *names, bool prefix)
{
	for (const char *s = names; *s;) {
		size_t len = strcspn(s, "|");

		if (!strncasecmp(n, s, len) && (prefix || !n[len]))
			return true;
		s += len;
		if (*s)
			s++;
	}
	return false;
}

static bool rule_matches(const struct col_rule *r, const struct col *c, bool after_text)
{
	if (r->after_text && !after_text)
		return false;
	if (r->gm == G_IS && !ieq(c->group, r->group))
		return false;
	if (r->gm == G_HAS && !c2c_group_has(c->group, r->group))
		return false;
	if (r->group_not && c2c_group_has(c->group, r->group_not))
		return false;
	return name_in(c->name, r->names, r->prefix);
}

static int map_col(const struct col_rule *rules, size_t nrules, const struct col *c, const bool *taken,
		   bool after_text, const char **share_of)
{
	for (size_t i = 0; i < nrules; i++) {
		const struct col_rule *r = &rules[i];

		if (!rule_matches(r, c, after_text) || (r->key >= 0 && taken[r->key]))
			continue;
		if (r->share_of)
			*share_of = r->share_of;
		return r->key;
	}
	return KEY_UNKNOWN;
}

/* The Shared Data Cache Line Table. */
static const struct col_rule cl_rules[] = {
	ANY("Index", CL_INDEX),
	ANY("Address|Cacheline", CL_ADDRESS),
	ANY("Node", CL_NODE),
	ANY("PA cnt", CL_PA_CNT),
	SHARE("Tot", "Hitm", "tot_hitm"),
	SHARE("Rmt", "Hitm", "rmt_hitm"),
	SHARE("Lcl", "Hitm", "lcl_hitm"),
	SHARE("Peer", "Snoop", "peer"),
	SHARE("Snoop", "Peer", "peer"),
	/* The v1 RFC's second "Snoop Peer" column is a count. */
	IS("Peer", "Snoop", CL_PEER_TOTAL),
	IS("Snoop", "Peer", CL_PEER_TOTAL),
	HAS("Load Hitm", "Total", CL_HITM_TOTAL),
	HAS("Load Hitm", "LclHitm|Lcl", CL_HITM_LCL),
	HAS("Load Hitm", "RmtHitm|Rmt", CL_HITM_RMT),
	HAS("Load Peer", "Total", CL_PEER_TOTAL),
	HAS("Load Peer", "Local", CL_PEER_LCL),
	HAS("Load Peer", "Remote", CL_PEER_RMT),
	IS("Total", "records", CL_RECORDS),
	IS("Total", "Loads", CL_LOADS),
	IS("Total", "Stores", CL_STORES),
	IS("Stores", "Total", CL_STORES),
	IS("Stores", "L1Hit", CL_ST_L1HIT),
	IS("Stores", "L1Miss", CL_ST_L1MISS),
	IS("Stores", "N/A|Anylvl", CL_ST_NA),
	HAS("Store Reference", "Total", CL_STORES),
	HAS("Store Reference", "L1Hit", CL_ST_L1HIT),
	HAS("Store Reference", "L1Miss", CL_ST_L1MISS),
	HAS("Store Reference", "N/A|Anylvl", CL_ST_NA),
	HAS("Core Load Hit", "FB", CL_LD_FB),
	HAS("Core Load Hit", "L1", CL_LD_L1),
	HAS("Core Load Hit", "L2", CL_LD_L2),
	LLC_HIT("LclHit|Llc", CL_LD_LCLHIT),
	LLC_HIT("LclHitm", CL_LD_LCLHITM),
	LLC_HIT("Rmt", CL_LD_RMTHIT),	/* 2016 layout: remote clean hits */
	HAS("RMT Load Hit", "RmtHit", CL_LD_RMTHIT),
	HAS("RMT Load Hit", "RmtHitm", CL_LD_RMTHITM),
	HAS("Load Dram", "Lcl", CL_DRAM_LCL),
	HAS("Load Dram", "Rmt", CL_DRAM_RMT),
	ANY("Ld Miss", CL_LLC_LD_MISS),
};

/* The Pareto table of each cacheline's offsets. */
static const struct col_rule pareto_rules[] = {
	NODE_INFO(true),	/* "Node" among the text columns is node info */
	ANY("Num", KEY_NUM),
	IS("HITM", "Rmt|RmtHitm", OFF_HITM_RMT_PCT),
	IS("HITM", "Lcl|LclHitm", OFF_HITM_LCL_PCT),
	IS("Peer Snoop", "Rmt", OFF_PEER_RMT_PCT),
	IS("Peer Snoop", "Lcl", OFF_PEER_LCL_PCT),
	IS("Snoop", "Peer", OFF_PEER_PCT),
	IS("Store Refs", "L1 Hit", OFF_ST_L1HIT_PCT),
	IS("Store Refs", "L1 Miss", OFF_ST_L1MISS_PCT),
	IS("Store Refs", "N/A|Any Lvl", OFF_ST_NA_PCT),
	ANY("Offset", OFF_OFFSET),
	ANY("Node", OFF_NODE),
	ANY("PA cnt", OFF_PA_CNT),
	ANY("Pid", OFF_PID),
	ANY("Tid", OFF_TID),
	ANY("Code address", OFF_CODE_ADDRESS),
	IS("cycles", "rmt hitm|rmt peer", OFF_CYCLES_RMT),
	IS("cycles", "lcl hitm|lcl peer", OFF_CYCLES_LCL),
	IS("cycles", "load", OFF_CYCLES_LOAD),
	IS("cycles", "peer", OFF_CYCLES_PEER),
	ANY("records", OFF_RECORDS),
	ANY("cnt", OFF_CPU_CNT),
	ANY("Symbol", OFF_SYMBOL),
	ANY("Object", OFF_OBJECT),
	ANY("Source:Line", OFF_SOURCE),
	NODE_INFO(false),
};

#undef ANY
#undef IS
#undef HAS
#undef SHARE
#undef LLC_HIT
#undef NODE_INFO

int c2c_map_cl_col(const struct col *c, const bool *taken, const char **share_of)
{
	return map_col(cl_rules, sizeof(cl_rules) / sizeof(cl_rules[0]), c, taken, false, share_of);
}

int c2c_map_pareto_col(const struct col *c, const bool *taken, bool after_text)
{
	const char *unused;

	return map_col(pareto_rules, sizeof(pareto_rules) / sizeof(pareto_rules[0]), c, taken, after_text,
		       &unused);
}

enum ctype c2c_cl_type(int key)
{
	switch (key) {
	case CL_ADDRESS: return T_HEX;
	case CL_NODE: return T_NODE;
	case CL_SHARE_PCT: return T_PCT;
	case KEY_UNKNOWN: return T_ANY;
	default: return T_INT;
	}
}

enum ctype c2c_off_type(int key)
{
	switch (key) {
	case KEY_NUM: return T_INT;
	case OFF_HITM_RMT_PCT: case OFF_HITM_LCL_PCT: case OFF_PEER_RMT_PCT:
	case OFF_PEER_LCL_PCT: case OFF_PEER_PCT: case OFF_ST_L1HIT_PCT:
	case OFF_ST_L1MISS_PCT: case OFF_ST_NA_PCT:
		return T_PCT;
	case OFF_OFFSET: case OFF_CODE_ADDRESS: return T_HEX;
	case OFF_NODE: return T_NODE;
	case OFF_TID: return T_TIDCOMM;
	case OFF_SYMBOL: case OFF_OBJECT: case OFF_SOURCE: case OFF_NODE_INFO:
		return T_TEXT;
	case KEY_UNKNOWN: return T_ANY;
	default: return T_INT;
	}
}

/* ---------------------------------------------------------------- */
/* Cells: a row in tokens, and what a column's cell may be          */

int c2c_tokenize(const char *s, struct tok *t, int max, const char **stop)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || n == max)
			break;
		t[n].s = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		t[n].len = (int)(s - t[n].s);
		n++;
	}
	if (stop)
		*stop = s;
	return n;
}

bool c2c_is_hex(const char *s, int len)
{
	if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (int i = 2; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool c2c_is_number(const char *s, int len)
{
	char buf[64], *end;

	if (len <= 0 || len >= (int)sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!strcasecmp(buf, "-nan") || !strcasecmp(buf, "nan"))
		return true;
	strtod(buf, &end);
	return end != buf && !*end;
}

static bool is_node(const char *s, int len)
{
	if (len == 3 && !strncmp(s, "N/A", 3))
		return true;
	if (len <= 0)
		return false;
	for (int i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != ',')
			return false;
	return isdigit((unsigned char)s[0]);
}

/* "[k]", "[.]", "[u]", "[g]", "[H]": where an offset row's text columns start. */
bool c2c_is_symbol_mark(const struct tok *k)
{
	return k->len == 3 && k->s[0] == '[' && k->s[2] == ']';
}

bool c2c_tok_is(enum ctype t, const struct tok *k)
{
	switch (t) {
	case T_INT: return str_is_digits(k->s, k->len);
	case T_PCT: return k->len > 1 && k->s[k->len - 1] == '%' && c2c_is_number(k->s, k->len - 1);
	case T_HEX: return c2c_is_hex(k->s, k->len);
	case T_NODE: return is_node(k->s, k->len);
	case T_TIDCOMM: {
		int i = 0;

		while (i < k->len && isdigit((unsigned char)k->s[i]))
			i++;
		return i > 0 && (i == k->len || k->s[i] == ':');
	}
	default: return k->len > 0;
	}
}

const char *c2c_type_name(enum ctype t)
{
	switch (t) {
	case T_INT: return "a count";
	case T_PCT: return "a percentage";
	case T_HEX: return "a hex address";
	case T_NODE: return "a node (N, N-M or N/A)";
	case T_TIDCOMM: return "tid:comm";
	default: return "a value";
	}
}
