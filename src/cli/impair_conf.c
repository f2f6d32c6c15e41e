/* SPDX-License-Identifier: GPL-2.0-or-later */
/* impair_conf.c - parse the --impair options (the stage that applies them
 * is shard/impair.c) */

#include <stdlib.h>
#include <string.h>

#include "cli/impair_conf.h"

/**
 * parse_ppm() - a percentage ("1%", "0.5", "25%") in parts per million
 * @s:		text
 * @ppm:	out
 *
 * Return: 0, or -1
 */
static int parse_ppm(const char *s, uint32_t *ppm)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || !(v >= 0 && v <= 100))
		return -1;
	*ppm = (uint32_t)(v * 10000 + 0.5);
	return 0;
}

/**
 * parse_delay() - a delay ("10ms", "500us", "10": ms)
 * @s:		text
 * @ns:		out
 *
 * Return: 0, or -1
 */
static int parse_delay(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);
	double unit = 1e6;

	if (!strcmp(end, "us"))
		unit = 1e3;
	else if (*end && strcmp(end, "ms"))
		return -1;
	if (end == s || !(v >= 0 && v <= 10000))
		return -1;
	*ns = (uint64_t)(v * unit + 0.5);
	return 0;
}

int impair_parse(struct impair_conf *c, const char *arg)
{
	struct impair_spec sp;
	char buf[256], *kv, *save = NULL;
	const char *colon = strchr(arg, ':');
	int dir;

	if (!colon || strlen(arg) >= sizeof(buf))
		return -1;
	if (colon - arg == 2 && !strncmp(arg, "up", 2))
		dir = IMPAIR_UP;
	else if (colon - arg == 4 && !strncmp(arg, "down", 4))
		dir = IMPAIR_DOWN;
	else
		return -1;
	sp = c->dir[dir];
	strcpy(buf, colon + 1);
	for (kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');
		int ret;

		if (!v)
			return -1;
		*v++ = '\0';
		if (!strcmp(kv, "drop"))
			ret = parse_ppm(v, &sp.drop);
		else if (!strcmp(kv, "dup"))
			ret = parse_ppm(v, &sp.dup);
		else if (!strcmp(kv, "reorder"))
			ret = parse_ppm(v, &sp.reorder);
		else if (!strcmp(kv, "corrupt"))
			ret = parse_ppm(v, &sp.corrupt);
		else if (!strcmp(kv, "gso"))
			ret = parse_ppm(v, &sp.gso);
		else if (!strcmp(kv, "delay"))
			ret = parse_delay(v, &sp.delay_ns);
		else
			ret = -1;
		if (ret)
			return -1;
	}
	if (!save || !*(colon + 1))
		return -1;
	c->dir[dir] = sp;
	c->on = true;
	return 0;
}
