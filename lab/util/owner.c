// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/fileio.h"
#include "util/owner.h"

unsigned long long proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_buf(path, buf, sizeof(buf)) <= 0)
		return 0;
	/* comm (field 2) may hold spaces and parentheses: skip to its end. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* A zombie (state Z, field 3) has exited: it owns nothing any more. */
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		return 0;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field == 22)
		start = strtoull(p, NULL, 10);
	return start;
}

void lab_owner_name(char *buf, size_t n)
{
	pid_t pid = getpid();

	snprintf(buf, n, LAB_OWNER_PREFIX "%d-%llu", (int)pid, proc_start_time(pid));
}

bool lab_owner_parse(const char *name, pid_t *pid, unsigned long long *start)
{
	const char *p;
	char *end;
	long v;

	if (strncmp(name, LAB_OWNER_PREFIX, strlen(LAB_OWNER_PREFIX)))
		return false;
	p = name + strlen(LAB_OWNER_PREFIX);
	v = strtol(p, &end, 10);
	if (end == p || *end != '-' || v <= 0)
		return false;
	p = end + 1;
	*pid = (pid_t)v;
	*start = strtoull(p, &end, 10);
	return end != p && *end == '\0';
}

bool lab_owner_split(const char *name, bool suffix_ok, char *owner, size_t n)
{
	const char *dot = strchr(name, '.');
	size_t len = dot ? (size_t)(dot - name) : strlen(name);
	unsigned long long start;
	pid_t pid;

	if (dot) {
		const char *s = dot + 1;

		if (!suffix_ok || strlen(s) != 6)
			return false;
		for (; *s; s++)
			if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
				return false;
	}
	if (len >= n)
		return false;
	memcpy(owner, name, len);
	owner[len] = '\0';
	return lab_owner_parse(owner, &pid, &start);
}

bool lab_owner_alive(const char *name)
{
	unsigned long long start;
	pid_t pid;

	if (!lab_owner_parse(name, &pid, &start))
		return false;
	return proc_start_time(pid) == start;
}
