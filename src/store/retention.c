// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "clock.h"
#include "retention.h"
#include "hours.h"
#include "util.h"

int store_retention(const char *dir, uint64_t now_us, uint64_t keep_us, uint64_t max_bytes)
{
	uint64_t current = now_us / USEC_PER_HOUR * USEC_PER_HOUR, total = 0;
	size_t n, deleted = 0;
	struct store_hour *hours;

	if (!keep_us && !max_bytes)
		return 0;
	if (store_hours_list(dir, &hours, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		total += hours[i].bytes;
	for (size_t i = 0; i < n && hours[i].hour_us < current; i++) {
		/* an hour is old when its last moment is */
		int too_old = keep_us && hours[i].hour_us + USEC_PER_HOUR + keep_us <= now_us;
		int too_big = max_bytes && total > max_bytes;

		if (!too_old && !too_big)
			break;
		store_hours_remove(dir, hours[i].hour_us);
		total -= hours[i].bytes;
		deleted++;
	}
	if (deleted)
		tract_debug("retention: deleted the %zu oldest hours of '%s'", deleted, dir);
	free(hours);
	return (int)deleted;
}
