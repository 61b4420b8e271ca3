#include "common.h"
#include <fcntl.h>
#include <signal.h>
/* Fills the disk a turn at a time, each turn under the per-turn bound
 * (240 MiB in files of 16 MiB, the file size limit), in its own folder,
 * which outlives the turn. It keeps count in written.txt. */
int main(int argc, char **argv) {
	init_bot(argc, argv);
	signal(SIGXFSZ, SIG_IGN);
	long total = 0;
	FILE *f = fopen("written.txt", "r");
	if (f) {
		if (fscanf(f, "%ld", &total) != 1) total = 0;
		fclose(f);
	}
	static char buf[1 << 16];
	for (int n = 0; n < 15 && total <= (1200L << 20); n++) {
		char p[64];
		snprintf(p, sizeof p, "slow%ld-%d", total >> 20, n);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) break;
		for (long w = 0; w < (16L << 20);) {
			long k = write(fd, buf, sizeof buf);
			if (k <= 0) break;
			w += k;
			total += k;
		}
		close(fd);
		f = fopen("written.txt", "w");
		if (f) {
			fprintf(f, "%ld\n", total);
			fclose(f);
		}
	}
	/* The session allows 1 GiB over the match: what it wrote past that,
	 * beyond what one poll lets through, went unchecked. */
	if (total > (1150L << 20)) loot("PWNED wrote more than 1150 MiB over the match");
	command();
	return 0;
}
