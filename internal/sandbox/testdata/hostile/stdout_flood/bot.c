#include "common.h"
int main(int argc, char **argv) {
	init_bot(argc, argv);
	static char buf[1 << 16];
	memset(buf, 'A', sizeof buf);
	for (long i = 0; i < (1L << 30) / (long)sizeof buf; i++)
		if (fwrite(buf, 1, sizeof buf, stdout) != sizeof buf) break;
	command();
	return 0;
}
