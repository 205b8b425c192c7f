/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TRACT_CRASH_REPORT_H
#define TRACT_CRASH_REPORT_H

/* The recorder's crashes reported on stderr before they end it (crash_report.c); none in sanitizer builds. */
void crash_report_install(void);

#endif
