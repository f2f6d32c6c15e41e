/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.c - run a fuzz target over saved inputs, without libFuzzer
 *
 * Usage: fuzz_TARGET FILE|DIR...
 *
 * Each file (directories are walked, in name order, skipping dot files) is
 * read into a buffer of exactly its size, so that sanitizers see reads past
 * the end, and given to LLVMFuzzerTestOneInput(). A crash or an invariant
 * failure aborts; otherwise the exit status is 0 once every input ran.
 */

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long nruns;

/**
 * run_file() - replay one input file
 * @path:	file
 *
 * Return: 0, or -1 if it could not be read
 */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: %s: cannot size\n", path);
		fclose(f);
		return -1;
	}
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: %s: read failed\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%ld bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	nruns++;
	return 0;
}

static int run_path(const char *path);

/**
 * run_dir() - replay every input in a directory, in name order
 * @path:	directory
 *
 * Return: 0, or -1 if anything could not be read
 */
static int run_dir(const char *path)
{
	struct dirent **ents;
	int n, i, ret = 0;

	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *sub;

		if (ents[i]->d_name[0] != '.' &&
		    asprintf(&sub, "%s/%s", path, ents[i]->d_name) >= 0) {
			if (run_path(sub))
				ret = -1;
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/**
 * run_path() - replay a file, or a directory's files
 * @path:	file or directory
 *
 * Return: 0, or -1 if anything could not be read
 */
static int run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return run_dir(path);
	return run_file(path);
}

int main(int argc, char **argv)
{
	int i, ret = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (run_path(argv[i]))
			ret = 1;
	fprintf(stderr, "replay: %lu inputs ran\n", nruns);
	if (!nruns)
		ret = 1; /* an empty corpus is a mistake, not a pass */
	return ret;
}
