/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist_record.c - what hist_record() costs per value
 *
 * Also times the monotonic clock read the batch latency takes twice per
 * edge batch. Feeds 64 Mi values (a mix of frame sizes: small ACKs, 1514-byte frames,
 * GSO super-frames) into a histogram and, as the baseline, into a plain
 * sum through the same loop; prints the difference per value. Run with
 * `meson test -C build --benchmark hist-record -v` or directly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "obs/hist.h"

#define N_VALUES (64U << 20)
#define N_DISTINCT 4096

/**
 * now_ns() - monotonic clock
 *
 * Return: nanoseconds
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	static uint64_t vals[N_DISTINCT];
	static struct hist h;
	volatile uint64_t sink;
	uint64_t s = 1, sum = 0, t0, t1, t2, t3;
	unsigned i;

	for (i = 0; i < N_DISTINCT; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		switch ((s >> 33) % 4) {
		case 0:
			vals[i] = 66;
			break;
		case 1:
			vals[i] = 1514;
			break;
		case 2:
			vals[i] = 60000 + (s >> 40) % 5535;
			break;
		default:
			vals[i] = 54 + (s >> 40) % 9000;
			break;
		}
	}
	hist_init(&h);
	t0 = now_ns();
	for (i = 0; i < N_VALUES; i++)
		__atomic_store_n(&sum, sum + vals[i % N_DISTINCT],
				 __ATOMIC_RELAXED);
	t1 = now_ns();
	for (i = 0; i < N_VALUES; i++)
		hist_record(&h, vals[i % N_DISTINCT]);
	t2 = now_ns();
	/* the batch timer's two clock reads, per edge batch (not per frame) */
	for (i = 0; i < (1U << 22); i++)
		sum += now_ns();
	t3 = now_ns();
	sink = sum + h.count;
	(void)sink;
	printf("hist_record: %.2f ns per value (loop baseline %.2f ns, %u "
	       "values, p50 %llu p99 %llu)\n",
	       (double)((t2 - t1) - (t1 - t0)) / N_VALUES,
	       (double)(t1 - t0) / N_VALUES, N_VALUES,
	       (unsigned long long)hist_quantile(&h, 0.5),
	       (unsigned long long)hist_quantile(&h, 0.99));
	printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns per read\n",
	       (double)(t3 - t2) / (1U << 22));
	return h.count == N_VALUES ? 0 : 1;
}
