// SPDX-License-Identifier: GPL-2.0-only
/* The thread-context writer as a library: built once per TLS model a reader must handle. */
#define OTEL_THREAD_CTX_IMPLEMENTATION
#include "tract/otel_thread_ctx.h"
