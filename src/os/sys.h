/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sys.h - small system helpers: the monotonic clock, spare descriptors */
#ifndef SLIPWAY_SYS_H
#define SLIPWAY_SYS_H

#include <stdbool.h>
#include <stdint.h>

uint64_t now_mono_ns(void);
int fd_spare_make(int like);
int fd_spare_refuse(int *spare, int like, int lfd, bool reset);

#endif /* SLIPWAY_SYS_H */
