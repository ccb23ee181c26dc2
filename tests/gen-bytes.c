// SPDX-License-Identifier: GPL-2.0
/*
 * Pseudo-random bytes for the tests: MIB MiB of them on standard output,
 * the same for the same SEED, so that what a test wrote can be checked
 * without keeping a copy. Incompressible enough that zram stores whole
 * pages. Under TCG and KASAN it is twenty times as fast as /dev/urandom or
 * Python's generator, which made up a fifth of some tests' time.
 *
 *     gen-bytes SEED MIB
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static uint64_t buf[CHUNK / sizeof(uint64_t)];

/* splitmix64: any seed, 0 included, gives a full-period sequence */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int write_all(const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* ARG as a number, or exit 2 naming it as WHAT */
static unsigned long long number(const char *arg, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end || end == arg) {
		fprintf(stderr, "gen-bytes: bad %s '%s'\n", what, arg);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long mib;
	uint64_t state;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: gen-bytes SEED MIB\n");
		return 2;
	}
	state = number(argv[1], "seed");
	mib = number(argv[2], "size");
	while (mib--) {
		for (i = 0; i < CHUNK / sizeof(uint64_t); i++)
			buf[i] = next(&state);
		if (write_all((const char *)buf, CHUNK)) {
			/* A reader that stopped early (head -c) is not an error. */
			if (errno == EPIPE)
				return 0;
			perror("gen-bytes");
			return 1;
		}
	}
	return 0;
}
