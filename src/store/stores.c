// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "sink.h"

const struct store_kind store_kinds[] = {
	{ "sqlite", store_sqlite__open },
	{ "csv", store_csv__open },
	{ NULL, NULL },
};

const struct store_kind *store_kind_named(const char *name)
{
	for (const struct store_kind *k = store_kinds; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}
